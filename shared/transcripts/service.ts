import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Platform } from '../contract/platforms.js';
import type { Knex } from '../infra/knex.js';
import type { ResponseCache } from '../infra/response-cache.js';
import { meetingHeaderJson } from '../meetings/serialize.js';
import { getMeeting, latestMeeting } from '../meetings/service.js';
import type { MeetingRecord } from '../meetings/store.js';
import { exportFilename, TEXT_EXPORTS, type TextTranscriptFormat } from './export-formats.js';
import { transcriptVersion } from './store.js';
import { exportSegments, segmentsJsonText } from './transcript-read.js';

/**
 * GET /transcripts' answer as JSON bytes, built once per version of the transcript and meeting and
 * then served from `cache`: a long meeting's transcript read by many clients costs one build.
 */
export async function transcriptAnswer(
  db: Knex,
  cache: ResponseCache,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<Buffer> {
  return transcriptJsonOf(db, cache, await latestMeeting(db, auth, platform, nativeMeetingId));
}

/** transcriptAnswer for the user's meeting of this id (404 `Meeting not found` otherwise). */
export async function meetingTranscriptAnswer(
  db: Knex,
  cache: ResponseCache,
  auth: AuthenticatedKey,
  meetingId: number,
): Promise<Buffer> {
  return transcriptJsonOf(db, cache, await getMeeting(db, auth, meetingId));
}

async function transcriptJsonOf(db: Knex, cache: ResponseCache, meeting: MeetingRecord): Promise<Buffer> {
  const version = await transcriptVersion(db, meeting.id);
  const key = `transcript:${meeting.id}:${meeting.status}:${meeting.startTime?.getTime()}:${meeting.endTime?.getTime()}:${version}`;
  return cache.through(key, async () => {
    // The meeting's members as meetingHeaderJson writes them, then the segments' JSON text.
    const header = JSON.stringify(meetingHeaderJson(meeting));
    return `${header.slice(0, -1)},"segments":${await segmentsJsonText(db, meeting.id)}}`;
  });
}

export interface TranscriptExport {
  body: Buffer;
  contentType: string;
  /** `<platform>-<native_meeting_id>.<format>`, safe in a Content-Disposition header. */
  filename: string;
}

/**
 * GET /transcripts' answer as text (`txt`, `srt`, `vtt`), cached like the JSON answer. The text shows
 * only the segments, so its key is the format and the transcript's version.
 */
export async function transcriptExport(
  db: Knex,
  cache: ResponseCache,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  format: TextTranscriptFormat,
): Promise<TranscriptExport> {
  return transcriptTextOf(db, cache, await latestMeeting(db, auth, platform, nativeMeetingId), format);
}

/** transcriptExport for the user's meeting of this id (404 `Meeting not found` otherwise). */
export async function meetingTranscriptExport(
  db: Knex,
  cache: ResponseCache,
  auth: AuthenticatedKey,
  meetingId: number,
  format: TextTranscriptFormat,
): Promise<TranscriptExport> {
  return transcriptTextOf(db, cache, await getMeeting(db, auth, meetingId), format);
}

async function transcriptTextOf(
  db: Knex,
  cache: ResponseCache,
  meeting: MeetingRecord,
  format: TextTranscriptFormat,
): Promise<TranscriptExport> {
  const version = await transcriptVersion(db, meeting.id);
  const { contentType, render } = TEXT_EXPORTS[format];
  const body = await cache.through(`transcript.${format}:${meeting.id}:${version}`, async () =>
    render(await exportSegments(db, meeting.id)),
  );
  return { body, contentType, filename: exportFilename(meeting.platform, meeting.nativeMeetingId, format) };
}
