import type { TranscriptionHealthMessage } from '../contract/events.js';
import type { Db } from '../infra/knex.js';
import type { TransitionRecord } from '../meetings/transitions-store.js';
import type { RecordingRecord } from '../recordings/store.js';
import type { SegmentRecord } from '../transcripts/store.js';
import { insertDeliveries, type NewDelivery } from './outbox.js';
import {
  recordingReadyData,
  statusChangedData,
  transcriptionHealthData,
  transcriptSegmentsData,
} from './payloads.js';
import { findWebhookTargets, type HookedTarget, isHooked, type WebhookTarget } from './targets.js';

/**
 * Writes the webhook events of committed changes to the outbox. Callers pass the transaction that
 * wrote the change, so an event exists exactly when its change does.
 */

/** A `meeting.status_changed` event for a recorded transition, if the meeting has a webhook. */
export async function recordStatusChangeEvent(db: Db, transition: TransitionRecord): Promise<void> {
  const target = (await findWebhookTargets(db, [transition.meetingId])).get(transition.meetingId);
  if (!isHooked(target)) return;
  await insertDeliveries(db, [
    delivery(target, 'meeting.status_changed', statusChangedData(target, transition)),
  ]);
}

/** A `meeting.transcription_health` event for a bot's health report, if the meeting has a webhook. */
export async function recordTranscriptionHealthEvent(
  db: Db,
  health: TranscriptionHealthMessage,
): Promise<void> {
  const target = (await findWebhookTargets(db, [health.meetingId])).get(health.meetingId);
  if (!isHooked(target)) return;
  await insertDeliveries(db, [
    delivery(target, 'meeting.transcription_health', transcriptionHealthData(target, health)),
  ]);
}

/** A `recording.ready` event for a recording just completed, if its meeting has a webhook. */
export async function recordRecordingReadyEvent(db: Db, recording: RecordingRecord): Promise<void> {
  if (recording.meetingId === null) return;
  const target = (await findWebhookTargets(db, [recording.meetingId])).get(recording.meetingId);
  if (!isHooked(target)) return;
  await insertDeliveries(db, [delivery(target, 'recording.ready', recordingReadyData(target, recording))]);
}

/**
 * One `transcript.segments` event per meeting for segments just written: final ones, and mutable
 * ones too where the endpoint asked for them. `targets` come from findWebhookTargets. Returns how
 * many events were written.
 */
export async function recordSegmentEvents(
  db: Db,
  written: readonly SegmentRecord[],
  targets: ReadonlyMap<number, WebhookTarget>,
): Promise<number> {
  const batches = new Map<number, { target: HookedTarget; segments: SegmentRecord[] }>();
  for (const segment of written) {
    const target = targets.get(segment.meetingId);
    if (!isHooked(target) || !(segment.final || target.partialSegments)) continue;
    const batch = batches.get(segment.meetingId) ?? { target, segments: [] };
    batch.segments.push(segment);
    batches.set(segment.meetingId, batch);
  }
  const deliveries = [...batches.values()].map(({ target, segments }) =>
    delivery(target, 'transcript.segments', transcriptSegmentsData(target, segments)),
  );
  await insertDeliveries(db, deliveries);
  return deliveries.length;
}

function delivery(
  target: HookedTarget,
  eventType: NewDelivery['eventType'],
  payload: NewDelivery['payload'],
): NewDelivery {
  return { userId: target.userId, meetingId: target.meetingId, eventType, payload, url: target.url };
}
