import type { Db } from '../infra/knex.js';
import { type MeetingRecord, type MeetingRow, toMeetingRecord as toRecord } from './store.js';

// Scheduled bots (POST /bots `join_at`, calendar feeds) still waiting for their time, and the
// schedule keys that name the occurrence a scheduler created each meeting for.

/** The user's scheduled bots still waiting for their time (MAX_SCHEDULED_BOTS_PER_USER counts them). */
export async function countWaitingScheduled(db: Db, userId: number): Promise<number> {
  const row = await db('meetings')
    .where({ user_id: userId, status: 'requested' })
    .whereNotNull('join_at')
    .whereNull('launch_session_id')
    .count<{ count: number }>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

/** The user's meeting a scheduler created for this occurrence, in any status. */
export async function findMeetingByScheduleKey(
  db: Db,
  userId: number,
  scheduleKey: string,
): Promise<MeetingRecord | undefined> {
  const row = await db<MeetingRow>('meetings').where({ user_id: userId, schedule_key: scheduleKey }).first();
  return row && toRecord(row);
}

/**
 * Moves a scheduled bot still waiting to `joinAt` (and keeps `data.join_at` in step). Undefined
 * when it is no longer waiting (launched, ended, or never scheduled).
 */
export async function moveScheduledJoin(
  db: Db,
  meetingId: number,
  joinAt: Date,
): Promise<MeetingRecord | undefined> {
  const [row] = await db<MeetingRow>('meetings')
    .where({ id: meetingId, status: 'requested' })
    .whereNotNull('join_at')
    .whereNull('launch_session_id')
    .update({
      join_at: joinAt,
      data: db.raw(`data || jsonb_build_object('join_at', ?::text)`, [
        joinAt.toISOString(),
      ]) as unknown as Record<string, unknown>,
      updated_at: db.fn.now() as unknown as Date,
    })
    .returning('*');
  return row && toRecord(row);
}

/** A scheduled bot still waiting for its time, locked until the transaction ends; undefined otherwise. */
export async function lockWaitingScheduled(db: Db, meetingId: number): Promise<MeetingRecord | undefined> {
  const row = await db<MeetingRow>('meetings')
    .where({ id: meetingId, status: 'requested' })
    .whereNotNull('join_at')
    .whereNull('launch_session_id')
    // NO KEY UPDATE, as for every lock on a meeting's row (moveMeetingStatus says why).
    .forNoKeyUpdate()
    .first();
  return row && toRecord(row);
}

/**
 * Frees a cancelled meeting's schedule key, so its scheduler can schedule the occurrence again if it
 * comes back (the meeting keeps its history; the key lives on in nothing else).
 */
export async function releaseScheduleKey(db: Db, meetingId: number): Promise<void> {
  await db('meetings').where({ id: meetingId }).update({ schedule_key: null });
}

/** The user's scheduled bots still waiting whose schedule key starts with `keyPrefix` (one scheduler's). */
export async function listWaitingScheduled(
  db: Db,
  userId: number,
  keyPrefix: string,
): Promise<MeetingRecord[]> {
  const rows = await db<MeetingRow>('meetings')
    .where({ user_id: userId, status: 'requested' })
    .whereNotNull('join_at')
    .whereNull('launch_session_id')
    .whereRaw('left(schedule_key, ?) = ?', [keyPrefix.length, keyPrefix])
    .orderBy('id');
  return rows.map(toRecord);
}

/** The user's meetings made for these schedule keys, by key (any status). */
export async function findMeetingsByScheduleKeys(
  db: Db,
  userId: number,
  scheduleKeys: readonly string[],
): Promise<Map<string, MeetingRecord>> {
  if (scheduleKeys.length === 0) return new Map();
  const rows = await db<MeetingRow>('meetings')
    .where({ user_id: userId })
    .whereIn('schedule_key', scheduleKeys);
  return new Map(rows.map((row) => [row.schedule_key!, toRecord(row)]));
}
