import type { MeetingStatus } from '../meetings/status.js';
import type { Platform } from '../meetings/platforms.js';
import type { LiveSegmentJson } from '../transcripts/serialize.js';

export const WEBHOOK_EVENT_TYPES = ['meeting.status_changed', 'transcript.segments'] as const;
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

/** The JSON body of one delivery: the same bytes on every retry. */
export interface WebhookEnvelope {
  id: string;
  type: WebhookEventType;
  created_at: string;
  data: StatusChangedData | TranscriptSegmentsData;
}

export function webhookBody(delivery: {
  id: string;
  eventType: WebhookEventType;
  createdAt: Date;
  payload: StatusChangedData | TranscriptSegmentsData;
}): string {
  const envelope: WebhookEnvelope = {
    id: delivery.id,
    type: delivery.eventType,
    created_at: delivery.createdAt.toISOString(),
    data: delivery.payload,
  };
  return JSON.stringify(envelope);
}
