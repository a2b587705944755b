import type { z } from 'zod';
import { isoOrNull } from '../infra/timestamps.js';
import { meetingJson } from '../meetings/serialize.js';
import type { MeetingRecord } from '../meetings/store.js';
import { RECORDING_CONTENT_TYPE, type RecordingRecord } from './store.js';
import type {
  meetingDetailSchema,
  recordingDetailSchema,
  recordingSchema,
  VisibleRecordingState,
} from './wire.js';

/**
 * Where a recording's media is fetched: `<base>/recordings/{id}/media?token=…`. `baseUrl` is the
 * deployment's PUBLIC_BASE_URL (it may carry a path prefix) or the request's own origin.
 */
export function recordingMediaUrl(
  baseUrl: string,
  recording: Pick<RecordingRecord, 'id' | 'mediaToken'>,
): string {
  const base = baseUrl.replace(/\/+$/, '');
  return `${base}/recordings/${recording.id}/media?token=${encodeURIComponent(recording.mediaToken)}`;
}

function visibleState(recording: RecordingRecord): VisibleRecordingState {
  // The service never hands out a recording being deleted: it is gone for the caller.
  if (recording.state === 'deleting') throw new Error(`recording ${recording.id} is being deleted`);
  return recording.state;
}

export function recordingJson(recording: RecordingRecord, baseUrl: string): z.infer<typeof recordingSchema> {
  return {
    id: recording.id,
    format: recording.format,
    state: visibleState(recording),
    start: recording.startSeconds,
    duration: recording.durationSeconds,
    size: recording.sizeBytes,
    created_at: recording.createdAt.toISOString(),
    completed_at: isoOrNull(recording.completedAt),
    media_url: recordingMediaUrl(baseUrl, recording),
  };
}

/** GET /recordings/{id}: the recording with the meeting it belongs to. */
export function recordingDetailJson(
  recording: RecordingRecord,
  meeting: Pick<MeetingRecord, 'id' | 'platform' | 'nativeMeetingId'>,
  baseUrl: string,
): z.infer<typeof recordingDetailSchema> {
  return {
    ...recordingJson(recording, baseUrl),
    meeting_id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
    content_type: RECORDING_CONTENT_TYPE,
    error: recording.error,
  };
}

/** GET /meetings/{id}; `baseUrl` is where the recordings' media URLs point (see recordingMediaUrl). */
export function meetingDetailJson(
  meeting: MeetingRecord,
  recordings: readonly RecordingRecord[],
  baseUrl: string,
): z.infer<typeof meetingDetailSchema> {
  return {
    ...meetingJson(meeting),
    recordings: recordings.map((recording) => recordingJson(recording, baseUrl)),
  };
}
