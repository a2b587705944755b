import type { ChatEvents, ChatMessagesWritten } from '../chat/events.js';
import type { TranscriptionHealthMessage } from '../contract/events.js';
import { ScheduleReasons } from '../contract/schedule.js';
import type { Db } from '../infra/knex.js';
import { findMeetingById } from '../meetings/store.js';
import type { MeetingEvents, MeetingStatusChanged } from '../meetings/events.js';
import type { ParticipantEvents, ParticipantEventsWritten } from '../participants/events.js';
import type { RecordingEvents, RecordingReady } from '../recordings/events.js';
import type { TranscriptEvents, TranscriptSegmentsWritten } from '../transcripts/events.js';
import { insertDeliveries, type NewDelivery } from './outbox.js';
import {
  botScheduleData,
  chatMessageData,
  participantEventData,
  recordingReadyData,
  statusChangedData,
  transcriptionHealthData,
  transcriptSegmentsData,
} from './payloads.js';
import { findWebhookTargets, type HookedTarget, isHooked } from './targets.js';

/**
 * Writes the webhook events of committed changes to the outbox. The features tell of their changes
 * (shared/<feature>/events.ts) inside the transaction that made them, so an event exists exactly
 * when its change does; the processes hand them `webhookOutbox` (api/app.ts, worker/events/domain-events.ts).
 */

/**
 * A `meeting.status_changed` event for a recorded transition, if the meeting has a webhook; after
 * it, `bot.scheduled` for a scheduled or moved bot and `bot.schedule_failed` for one that could not
 * launch at its time.
 */
async function recordStatusChangeEvent(db: Db, change: MeetingStatusChanged): Promise<void> {
  const target = (await findWebhookTargets(db, [change.meetingId])).get(change.meetingId);
  if (!isHooked(target)) return;
  const deliveries = [delivery(target, 'meeting.status_changed', statusChangedData(target, change))];
  const scheduleEvent = scheduleEventOf(change);
  if (scheduleEvent) {
    const joinAt = (await findMeetingById(db, change.meetingId))?.joinAt ?? null;
    deliveries.push(delivery(target, scheduleEvent, botScheduleData(target, change, joinAt)));
  }
  await insertDeliveries(db, deliveries);
}

function scheduleEventOf(change: MeetingStatusChanged): 'bot.scheduled' | 'bot.schedule_failed' | undefined {
  if (
    change.to === 'requested' &&
    (change.reason === ScheduleReasons.scheduled || change.reason === ScheduleReasons.moved)
  )
    return 'bot.scheduled';
  if (change.to === 'failed' && change.reason === ScheduleReasons.limitFull) return 'bot.schedule_failed';
  return undefined;
}

/** A `recording.ready` event for a recording just completed, if its meeting has a webhook. */
async function recordRecordingReadyEvent(db: Db, ready: RecordingReady): Promise<void> {
  const target = (await findWebhookTargets(db, [ready.meetingId])).get(ready.meetingId);
  if (!isHooked(target)) return;
  await insertDeliveries(db, [delivery(target, 'recording.ready', recordingReadyData(target, ready))]);
}

/**
 * One `transcript.segments` event per meeting for segments just written: final ones, and mutable
 * ones too where the endpoint asked for them.
 */
async function recordSegmentEvents(db: Db, { segments }: TranscriptSegmentsWritten): Promise<void> {
  const targets = await findWebhookTargets(db, [...new Set(segments.map((segment) => segment.meetingId))]);
  const batches = new Map<number, { target: HookedTarget; segments: Array<(typeof segments)[number]> }>();
  for (const segment of segments) {
    const target = targets.get(segment.meetingId);
    if (!isHooked(target) || !(segment.final || target.partialSegments)) continue;
    const batch = batches.get(segment.meetingId) ?? { target, segments: [] };
    batch.segments.push(segment);
    batches.set(segment.meetingId, batch);
  }
  await insertDeliveries(
    db,
    [...batches.values()].map(({ target, segments }) =>
      delivery(target, 'transcript.segments', transcriptSegmentsData(target, segments)),
    ),
  );
}

/** One `chat.message` event per message just stored, for meetings with a webhook. */
async function recordChatMessageEvents(db: Db, { messages }: ChatMessagesWritten): Promise<void> {
  const targets = await findWebhookTargets(db, [...new Set(messages.map((message) => message.meetingId))]);
  const deliveries: NewDelivery[] = [];
  for (const message of messages) {
    const target = targets.get(message.meetingId);
    if (isHooked(target)) deliveries.push(delivery(target, 'chat.message', chatMessageData(target, message)));
  }
  await insertDeliveries(db, deliveries);
}

/** One `participant.<type>` event per participant event just stored, for meetings with a webhook. */
async function recordParticipantEvents(db: Db, { events }: ParticipantEventsWritten): Promise<void> {
  const targets = await findWebhookTargets(db, [...new Set(events.map((event) => event.meetingId))]);
  const deliveries: NewDelivery[] = [];
  for (const event of events) {
    const target = targets.get(event.meetingId);
    if (isHooked(target)) deliveries.push(delivery(target, event.type, participantEventData(target, event)));
  }
  await insertDeliveries(db, deliveries);
}

/** The outbox as the receiver of the features' events. */
export const webhookOutbox: MeetingEvents &
  TranscriptEvents &
  RecordingEvents &
  ChatEvents &
  ParticipantEvents = {
  meetingStatusChanged: recordStatusChangeEvent,
  transcriptSegmentsWritten: recordSegmentEvents,
  recordingReady: recordRecordingReadyEvent,
  chatMessagesWritten: recordChatMessageEvents,
  participantEventsWritten: recordParticipantEvents,
};

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

function delivery(
  target: HookedTarget,
  eventType: NewDelivery['eventType'],
  payload: NewDelivery['payload'],
): NewDelivery {
  return { userId: target.userId, meetingId: target.meetingId, eventType, payload, url: target.url };
}
