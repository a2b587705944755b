import type { z } from 'zod';
import { isoOrNull } from '../infra/timestamps.js';
import type { MeetingRecord } from '../meetings/store.js';
import type { MediaLinks } from './media-links.js';
import { RECORDING_CONTENT_TYPE, type RecordingRecord } from './store.js';
import type { recordingDetailSchema, recordingSchema, VisibleRecordingState } from './wire.js';

/** Where a recording's media is fetched: `<base>/recordings/{id}/media?token=…`, a signed, expiring link. */
export function recordingMediaUrl(links: MediaLinks, recordingId: number): string {
  const base = links.baseUrl.replace(/\/+$/, '');
  return `${base}/recordings/${recordingId}/media?token=${encodeURIComponent(links.tokenFor(recordingId))}`;
}

function visibleState(recording: RecordingRecord): VisibleRecordingState {
  // The service never hands out a recording being deleted: it is gone for the caller.
  if (recording.state === 'deleting') throw new Error(`recording ${recording.id} is being deleted`);
  return recording.state;
}

export function recordingJson(
  recording: RecordingRecord,
  links: MediaLinks,
): z.infer<typeof recordingSchema> {
  return {
    id: recording.id,
    format: recording.format,
    state: visibleState(recording),
    start: recording.startSeconds,
    duration: recording.durationSeconds,
    size: recording.sizeBytes,
    created_at: recording.createdAt.toISOString(),
    completed_at: isoOrNull(recording.completedAt),
    media_url: recordingMediaUrl(links, recording.id),
  };
}

/** GET /recordings/{id}: the recording with the meeting it belongs to. */
export function recordingDetailJson(
  recording: RecordingRecord,
  meeting: Pick<MeetingRecord, 'id' | 'platform' | 'nativeMeetingId'>,
  links: MediaLinks,
): z.infer<typeof recordingDetailSchema> {
  return {
    ...recordingJson(recording, links),
    meeting_id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
    content_type: RECORDING_CONTENT_TYPE,
    error: recording.error,
  };
}
