import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Knex } from '../infra/knex.js';
import type { ResponseCache } from '../infra/response-cache.js';
import type { Platform } from '../meetings/platforms.js';
import { meetingHeaderJson } from '../meetings/serialize.js';
import { latestMeeting } from '../meetings/service.js';
import { transcriptVersion } from './store.js';
import { segmentsJsonText } from './transcript-read.js';

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
  const meeting = await latestMeeting(db, auth, platform, nativeMeetingId);
  const version = await transcriptVersion(db, meeting.id);
  const key = `transcript:${meeting.id}:${meeting.status}:${meeting.startTime?.getTime()}:${meeting.endTime?.getTime()}:${version}`;
  return cache.through(key, async () => {
    // The meeting's members as meetingHeaderJson writes them, then the segments' JSON text.
    const header = JSON.stringify(meetingHeaderJson(meeting));
    return `${header.slice(0, -1)},"segments":${await segmentsJsonText(db, meeting.id)}}`;
  });
}
