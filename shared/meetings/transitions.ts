import type { MeetingStatus } from '../contract/meeting-status.js';
import type { Db } from '../infra/knex.js';
import type { MeetingEvents } from './events.js';
import { type MeetingRecord, moveMeetingStatus } from './store.js';
import {
  findLatestTransition,
  insertTransition,
  type NewTransition,
  type TransitionRecord,
} from './transitions-store.js';

export interface TransitionRequest {
  to: MeetingStatus;
  source: string;
  reason?: string | null | undefined;
  /** Human-readable context (exit code, last log lines) kept beside the machine-readable reason. */
  detail?: string | null | undefined;
  /** Optional extra column to set in the same update (the container id when the bot starts). */
  botContainerId?: string | null | undefined;
}

export interface TransitionResult {
  meeting: MeetingRecord;
  from: MeetingStatus;
}

/**
 * Moves a meeting forward (only from an allowed predecessor, so two writers can never race it into
 * an impossible state) and records the change, all in one transaction, where `events` hears of it.
 * Returns undefined when the move is not allowed from the current status.
 */
export async function transitionMeeting(
  db: Db,
  events: MeetingEvents,
  meetingId: number,
  request: TransitionRequest,
): Promise<TransitionResult | undefined> {
  if (!db.isTransaction) return db.transaction((trx) => transitionMeeting(trx, events, meetingId, request));
  const moved = await moveMeetingStatus(db, meetingId, {
    to: request.to,
    botContainerId: request.botContainerId,
  });
  if (!moved) return undefined;
  await recordStatusChange(db, events, {
    meetingId,
    from: moved.from,
    to: request.to,
    source: request.source,
    reason: request.reason ?? null,
    detail: request.detail ?? null,
  });
  return moved;
}

/**
 * Stores a status change with its time, source and reason, and tells `events` of it (the webhook
 * outbox writes its event). Call it in the transaction that changed the meeting's status.
 */
export async function recordStatusChange(
  db: Db,
  events: MeetingEvents,
  change: NewTransition,
): Promise<TransitionRecord> {
  const record = await insertTransition(db, change);
  await events.meetingStatusChanged(db, {
    meetingId: record.meetingId,
    from: record.from,
    to: record.to,
    source: record.source,
    reason: record.reason,
    detail: record.detail,
    at: record.createdAt,
  });
  return record;
}

/**
 * A relaunched bot is back in the call of a meeting that stayed `active`: records `rejoined` with how
 * long the meeting was without a bot. Once per relaunch (only right after its `relaunched` event),
 * so a repeated event records nothing. Returns whether it recorded the event.
 */
export async function recordRejoin(
  db: Db,
  events: MeetingEvents,
  meeting: MeetingRecord,
  at: Date,
): Promise<boolean> {
  if (!db.isTransaction) return db.transaction((trx) => recordRejoin(trx, events, meeting, at));
  // NO KEY UPDATE, as for every lock on a meeting's row (moveMeetingStatus says why).
  await db('meetings').where({ id: meeting.id }).forNoKeyUpdate().first('id');
  const latest = await findLatestTransition(db, meeting.id);
  if (latest?.reason !== 'relaunched') return false;
  const seconds = Math.max(0, (at.getTime() - latest.createdAt.getTime()) / 1000);
  await recordStatusChange(db, events, {
    meetingId: meeting.id,
    from: meeting.status,
    to: meeting.status,
    source: 'bot',
    reason: 'rejoined',
    detail: `the relaunched bot is back in the call ${seconds.toFixed(1)} s after the relaunch (relaunch ${meeting.relaunchCount})`,
  });
  return true;
}
