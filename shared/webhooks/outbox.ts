import type { Platform } from '../meetings/platforms.js';
import type { StatusChangedData, TranscriptSegmentsData, WebhookEventType } from './payloads.js';
import { liveSegmentJson } from '../transcripts/serialize.js';
import type { Db } from '../infra/knex.js';
import type { TransitionRecord } from '../meetings/transitions-store.js';
import type { SegmentRecord } from '../transcripts/store.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryRecord {
  id: string;
  seq: number;
  userId: number;
  meetingId: number;
  eventType: WebhookEventType;
  payload: StatusChangedData | TranscriptSegmentsData;
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
  payload: StatusChangedData | TranscriptSegmentsData;
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

/** Where a meeting's events go: the bot's own endpoint if it has one, else its user's (null: nowhere). */
export interface WebhookTarget {
  meetingId: number;
  userId: number;
  platform: Platform;
  nativeMeetingId: string;
  url: string | null;
  partialSegments: boolean;
}

type HookedTarget = WebhookTarget & { url: string };

function isHooked(target: WebhookTarget | undefined): target is HookedTarget {
  return typeof target?.url === 'string';
}

/** The webhook target of each of these meetings that exists (one query, meetings joined to users). */
export async function findWebhookTargets(
  db: Db,
  meetingIds: readonly number[],
): Promise<Map<number, WebhookTarget>> {
  if (meetingIds.length === 0) return new Map();
  const rows: Array<{
    id: number;
    user_id: number;
    platform: Platform;
    native_meeting_id: string;
    meeting_webhook_url: string | null;
    meeting_partial: boolean;
    user_webhook_url: string | null;
    user_partial: boolean;
  }> = await db('meetings as m')
    .join('users as u', 'u.id', 'm.user_id')
    .whereIn('m.id', meetingIds)
    .select(
      'm.id',
      'm.user_id',
      'm.platform',
      'm.native_meeting_id',
      'm.webhook_url as meeting_webhook_url',
      'm.webhook_partial_segments as meeting_partial',
      'u.webhook_url as user_webhook_url',
      'u.webhook_partial_segments as user_partial',
    );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        meetingId: row.id,
        userId: row.user_id,
        platform: row.platform,
        nativeMeetingId: row.native_meeting_id,
        url: row.meeting_webhook_url ?? row.user_webhook_url,
        partialSegments: row.meeting_webhook_url ? row.meeting_partial : row.user_partial,
      },
    ]),
  );
}

const meetingRef = (target: WebhookTarget) => ({
  id: target.meetingId,
  platform: target.platform,
  native_meeting_id: target.nativeMeetingId,
});

/**
 * Queues a `meeting.status_changed` delivery for a recorded transition, if the meeting has a webhook.
 * Call it in the transaction that recorded the transition: the event exists iff the change does.
 */
export async function recordStatusChangeDelivery(db: Db, transition: TransitionRecord): Promise<void> {
  const target = (await findWebhookTargets(db, [transition.meetingId])).get(transition.meetingId);
  if (!isHooked(target)) return;
  const payload: StatusChangedData = {
    meeting: meetingRef(target),
    status: transition.to,
    previous_status: transition.from,
    reason: transition.reason,
    detail: transition.detail,
    source: transition.source,
    changed_at: transition.createdAt.toISOString(),
  };
  await insertDeliveries(db, [{ target, eventType: 'meeting.status_changed', payload }]);
}

/**
 * Queues one `transcript.segments` delivery per meeting for segments just written: final ones, and
 * mutable ones too where the endpoint asked for them. Call it in the transaction that wrote them,
 * with the meetings' targets (findWebhookTargets).
 */
export async function recordSegmentDeliveries(
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
  const deliveries = [...batches.values()].map(({ target, segments }) => {
    const ordered = [...segments].sort((a, b) => a.start - b.start || a.changeSeq - b.changeSeq);
    const payload: TranscriptSegmentsData = {
      meeting: meetingRef(target),
      segments: ordered.map(liveSegmentJson),
    };
    return { target, eventType: 'transcript.segments' as const, payload };
  });
  await insertDeliveries(db, deliveries);
  return deliveries.length;
}

async function insertDeliveries(
  db: Db,
  deliveries: Array<{
    target: HookedTarget;
    eventType: WebhookEventType;
    payload: StatusChangedData | TranscriptSegmentsData;
  }>,
): Promise<void> {
  if (deliveries.length === 0) return;
  await db('webhook_deliveries').insert(
    deliveries.map(({ target, eventType, payload }) => ({
      user_id: target.userId,
      meeting_id: target.meetingId,
      event_type: eventType,
      payload: JSON.stringify(payload),
      url: target.url,
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

/** The secret that signs a delivery now: the bot's own if it was given one, else the user's. */
export async function signingSecretFor(db: Db, meetingId: number): Promise<string | null> {
  const row: { secret: string | null } | undefined = await db('meetings as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.id', meetingId)
    .first(db.raw('coalesce(m.webhook_secret, u.webhook_secret) as secret'));
  return row?.secret ?? null;
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
