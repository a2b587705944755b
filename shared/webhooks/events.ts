import type { SegmentRecord } from '../db/segments.js';
import type { MeetingStatus } from '../domain/meeting-status.js';
import type { Platform } from '../domain/platforms.js';
import { type SegmentJson, segmentJson } from '../transcript-json.js';

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

export interface WebhookSegmentJson extends SegmentJson {
  /** Stable per segment: a mutable segment that changes is sent again with the same id. */
  segment_id: string;
  final: boolean;
}

export interface TranscriptSegmentsData {
  meeting: WebhookMeetingRef;
  segments: WebhookSegmentJson[];
}

/** The JSON body of one delivery: the same bytes on every retry. */
export interface WebhookEnvelope {
  id: string;
  type: WebhookEventType;
  created_at: string;
  data: StatusChangedData | TranscriptSegmentsData;
}

export function webhookSegmentJson(segment: SegmentRecord): WebhookSegmentJson {
  return { segment_id: segment.segmentId, final: segment.final, ...segmentJson(segment) };
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
