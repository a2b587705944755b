import { type ChatMessageJson, chatMessageJson } from '../chat/serialize.js';
import type { ChatMessageRecord } from '../chat/store.js';
import type {
  AudioDroppedBy,
  TranscriptionHealthKind,
  TranscriptionHealthMessage,
} from '../contract/events.js';
import type { MeetingStatus } from '../contract/meeting-status.js';
import type { Platform } from '../contract/platforms.js';
import type { MeetingStatusChanged } from '../meetings/events.js';
import { type ParticipantEventJson, participantEventJson } from '../participants/serialize.js';
import type { ParticipantEventRecord } from '../participants/store.js';
import type { RecordingReady } from '../recordings/events.js';
import type { TranscriptSegmentsWritten } from '../transcripts/events.js';
import { type LiveSegmentJson, liveSegmentJson } from '../transcripts/serialize.js';
import type { WebhookTarget } from './targets.js';

export const WEBHOOK_EVENT_TYPES = [
  'meeting.status_changed',
  'transcript.segments',
  'meeting.transcription_health',
  'recording.ready',
  'chat.message',
  'participant.joined',
  'participant.left',
  'participant.speech_started',
  'participant.speech_stopped',
  'bot.scheduled',
  'bot.schedule_failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** Sent on request only (POST /user/webhook/test), never stored or retried. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export interface WebhookMeetingRef {
  id: number;
  platform: Platform;
  native_meeting_id: string;
}

export interface StatusChangedData {
  meeting: WebhookMeetingRef;
  status: MeetingStatus;
  previous_status: MeetingStatus | null;
  reason: string | null;
  detail: string | null;
  /** Who moved the meeting: api, bot, worker, reconciler. */
  source: string;
  changed_at: string;
}

export interface TranscriptSegmentsData {
  meeting: WebhookMeetingRef;
  segments: LiveSegmentJson[];
}

/** The bot's transcription fell behind, caught up, or had to leave a stretch of audio out. */
export interface TranscriptionHealthData {
  meeting: WebhookMeetingRef;
  kind: TranscriptionHealthKind;
  /** How far (seconds) the transcription was behind the meeting. */
  lag_seconds: number;
  /** audio_dropped: the wall-clock stretch of the meeting left untranscribed. */
  dropped_from: string | null;
  dropped_to: string | null;
  /** audio_dropped: what left it out, `engine` (too far behind) or `capture` (the page's clock skipped it); else null. */
  dropped_by: AudioDroppedBy | null;
  /** audio_dropped by the capture: seconds lost within the stretch; else null. */
  dropped_seconds: number | null;
  observed_at: string;
}

/** A meeting's recording is complete: its file can be fetched (GET /recordings/{id}/media). */
export interface RecordingReadyData {
  meeting: WebhookMeetingRef;
  recording: {
    id: number;
    format: string;
    content_type: string;
    /** The transcript time (seconds) of the recording's time zero. */
    start: number;
    duration: number;
    size: number;
    completed_at: string | null;
  };
}

/** A message the bot read in the meeting chat (its own included, `is_from_bot`). */
export interface ChatMessageData {
  meeting: WebhookMeetingRef;
  message: ChatMessageJson;
}

/**
 * A scheduled bot was scheduled or moved (`bot.scheduled`), or could not launch at its time
 * (`bot.schedule_failed`, reason `concurrent_limit_reached`).
 */
export interface BotScheduleData {
  meeting: WebhookMeetingRef;
  join_at: string | null;
  status: MeetingStatus;
  reason: string | null;
  detail: string | null;
  changed_at: string;
}

export type WebhookEventData =
  | BotScheduleData
  | ChatMessageData
  | ParticipantEventData
  | StatusChangedData
  | TranscriptSegmentsData
  | TranscriptionHealthData
  | RecordingReadyData;

function meetingRef(target: WebhookTarget): WebhookMeetingRef {
  return { id: target.meetingId, platform: target.platform, native_meeting_id: target.nativeMeetingId };
}

export function statusChangedData(target: WebhookTarget, change: MeetingStatusChanged): StatusChangedData {
  return {
    meeting: meetingRef(target),
    status: change.to,
    previous_status: change.from,
    reason: change.reason,
    detail: change.detail,
    source: change.source,
    changed_at: change.at.toISOString(),
  };
}

export function botScheduleData(
  target: WebhookTarget,
  change: MeetingStatusChanged,
  joinAt: Date | null,
): BotScheduleData {
  return {
    meeting: meetingRef(target),
    join_at: joinAt?.toISOString() ?? null,
    status: change.to,
    reason: change.reason,
    detail: change.detail,
    changed_at: change.at.toISOString(),
  };
}

export function transcriptionHealthData(
  target: WebhookTarget,
  health: Omit<TranscriptionHealthMessage, 'meetingId' | 'sessionId'>,
): TranscriptionHealthData {
  return {
    meeting: meetingRef(target),
    kind: health.kind,
    lag_seconds: health.lagSeconds,
    dropped_from: health.droppedFrom ?? null,
    dropped_to: health.droppedTo ?? null,
    dropped_by: health.kind === 'audio_dropped' ? (health.droppedBy ?? 'engine') : null,
    dropped_seconds: health.droppedSeconds ?? null,
    observed_at: health.at,
  };
}

export function recordingReadyData(target: WebhookTarget, { recording }: RecordingReady): RecordingReadyData {
  return {
    meeting: meetingRef(target),
    recording: {
      id: recording.id,
      format: recording.format,
      content_type: recording.contentType,
      start: recording.startSeconds,
      duration: recording.durationSeconds,
      size: recording.sizeBytes,
      completed_at: recording.completedAt?.toISOString() ?? null,
    },
  };
}

export function chatMessageData(target: WebhookTarget, message: ChatMessageRecord): ChatMessageData {
  return { meeting: meetingRef(target), message: chatMessageJson(message) };
}

/** One meeting's segments, in transcript order (then in the order they were written). */
export function transcriptSegmentsData(
  target: WebhookTarget,
  segments: TranscriptSegmentsWritten['segments'],
): TranscriptSegmentsData {
  const ordered = [...segments].sort((a, b) => a.start - b.start || a.changeSeq - b.changeSeq);
  return { meeting: meetingRef(target), segments: ordered.map(liveSegmentJson) };
}

/** A participant joined, left, started or stopped speaking (the event type says which). */
export interface ParticipantEventData {
  meeting: WebhookMeetingRef;
  participant_event: ParticipantEventJson;
}

export function participantEventData(
  target: WebhookTarget,
  event: ParticipantEventRecord,
): ParticipantEventData {
  return { meeting: meetingRef(target), participant_event: participantEventJson(event) };
}

/** The JSON body of one delivery: the same bytes on every retry. */
export interface WebhookEnvelope {
  id: string;
  type: WebhookEventType;
  created_at: string;
  data: WebhookEventData;
}

export function webhookBody(delivery: {
  id: string;
  eventType: WebhookEventType;
  createdAt: Date;
  payload: WebhookEventData;
}): string {
  const envelope: WebhookEnvelope = {
    id: delivery.id,
    type: delivery.eventType,
    created_at: delivery.createdAt.toISOString(),
    data: delivery.payload,
  };
  return JSON.stringify(envelope);
}
