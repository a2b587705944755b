import type { Db } from '../infra/knex.js';
import type { WebhookEventData, WebhookEventType } from './payloads.js';

/**
 * The webhook outbox: one row per event to deliver, written in the transaction of the change it
 * reports, then sent in order per meeting by the workers. Storage only: what goes in a payload is
 * decided by record-events.ts.
 */

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryRecord {
  id: string;
  seq: number;
  userId: number;
  meetingId: number;
  eventType: WebhookEventType;
  payload: WebhookEventData;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  createdAt: Date;
  windowStartedAt: Date;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
}

interface DeliveryRow {
  id: string;
  seq: string | number;
  user_id: number;
  meeting_id: number;
  event_type: WebhookEventType;
  payload: WebhookEventData;
  url: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: Date;
  window_started_at: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  failed_at: Date | null;
}

function toRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    seq: Number(row.seq),
    userId: row.user_id,
    meetingId: row.meeting_id,
    eventType: row.event_type,
    payload: row.payload,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    createdAt: row.created_at,
    windowStartedAt: row.window_started_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
  };
}

export interface NewDelivery {
  userId: number;
  meetingId: number;
  eventType: WebhookEventType;
  payload: WebhookEventData;
  url: string;
}

export async function insertDeliveries(db: Db, deliveries: readonly NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await db('webhook_deliveries').insert(
    deliveries.map((delivery) => ({
      user_id: delivery.userId,
      meeting_id: delivery.meetingId,
      event_type: delivery.eventType,
      payload: JSON.stringify(delivery.payload),
      url: delivery.url,
    })),
  );
}

export async function findDelivery(db: Db, id: string): Promise<DeliveryRecord | undefined> {
  const row = await db<DeliveryRow>('webhook_deliveries').where({ id }).first();
  return row && toRecord(row);
}

/** Whether an older delivery of the same meeting is still pending (then this one must wait). */
export async function hasEarlierPending(db: Db, delivery: Pick<DeliveryRecord, 'meetingId' | 'seq'>) {
  const row = await db('webhook_deliveries')
    .where({ meeting_id: delivery.meetingId, status: 'pending' })
    .andWhere('seq', '<', delivery.seq)
    .first('id');
  return row !== undefined;
}

/** The oldest pending delivery of each meeting (all meetings when none are named): what may go out next. */
export async function pendingHeads(
  db: Db,
  meetingIds?: readonly number[],
): Promise<Array<{ id: string; meetingId: number; windowStartedAt: Date }>> {
  if (meetingIds?.length === 0) return [];
  const query = db('webhook_deliveries')
    .distinctOn('meeting_id')
    .where({ status: 'pending' })
    .orderBy([
      { column: 'meeting_id', order: 'asc' },
      { column: 'seq', order: 'asc' },
    ])
    .select('id', 'meeting_id', 'window_started_at');
  if (meetingIds) query.whereIn('meeting_id', meetingIds);
  const rows: Array<{ id: string; meeting_id: number; window_started_at: Date }> = await query;
  return rows.map((row) => ({
    id: row.id,
    meetingId: row.meeting_id,
    windowStartedAt: row.window_started_at,
  }));
}

export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
}

export async function markDelivered(db: Db, id: string, outcome: AttemptOutcome): Promise<void> {
  await db('webhook_deliveries')
    .where({ id, status: 'pending' })
    .update({
      status: 'delivered',
      attempts: db.raw('attempts + 1'),
      last_attempt_at: db.fn.now(),
      last_status_code: outcome.statusCode,
      last_error: null,
      delivered_at: db.fn.now(),
    });
}

/** Records a failed attempt; with `final`, the delivery is given up and marked failed. */
export async function recordFailedAttempt(
  db: Db,
  id: string,
  outcome: AttemptOutcome,
  final: boolean,
): Promise<void> {
  await db('webhook_deliveries')
    .where({ id, status: 'pending' })
    .update({
      attempts: db.raw('attempts + 1'),
      last_attempt_at: db.fn.now(),
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      ...(final ? { status: 'failed', failed_at: db.fn.now() } : {}),
    });
}

/** A failed delivery goes out again (ahead of the meeting's deliveries still pending, as it is older) with a fresh retry window. */
export async function requeueFailedDelivery(
  db: Db,
  userId: number,
  id: string,
): Promise<DeliveryRecord | undefined> {
  const [row] = await db<DeliveryRow>('webhook_deliveries')
    .where({ id, user_id: userId, status: 'failed' })
    .update({ status: 'pending', failed_at: null, window_started_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row && toRecord(row);
}

export interface DeliveryFilter {
  status?: DeliveryStatus | undefined;
  meetingId?: number | undefined;
  limit: number;
  offset: number;
}

/** The user's deliveries, newest first. */
export async function listUserDeliveries(
  db: Db,
  userId: number,
  filter: DeliveryFilter,
): Promise<DeliveryRecord[]> {
  const query = db<DeliveryRow>('webhook_deliveries')
    .where({ user_id: userId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'seq', order: 'desc' },
    ])
    .limit(filter.limit)
    .offset(filter.offset);
  if (filter.status) query.andWhere({ status: filter.status });
  if (filter.meetingId !== undefined) query.andWhere({ meeting_id: filter.meetingId });
  const rows = await query;
  return rows.map(toRecord);
}

export async function findUserDelivery(
  db: Db,
  userId: number,
  id: string,
): Promise<DeliveryRecord | undefined> {
  const row = await db<DeliveryRow>('webhook_deliveries').where({ id, user_id: userId }).first();
  return row && toRecord(row);
}
