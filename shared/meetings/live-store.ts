import { NON_TERMINAL_STATUSES } from '../contract/meeting-status.js';
import type { Platform } from '../contract/platforms.js';
import type { Db, Knex } from '../infra/knex.js';
import { type MeetingRecord, type MeetingRow, NEWEST_FIRST, toMeetingRecord as toRecord } from './store.js';

// The meetings that still have a bot in flight: the one a bot action reaches, and the user's bots
// that hold a slot (POST /bots's concurrent-bot limit, GET /bots/status).

/** The user's meeting for this platform + native id that still has a bot in flight (at most one exists). */
export async function findLiveMeeting(
  db: Db,
  userId: number,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord | undefined> {
  const row = await db<MeetingRow>('meetings')
    .where({ user_id: userId, platform, native_meeting_id: nativeMeetingId })
    .whereIn('status', NON_TERMINAL_STATUSES)
    .first();
  return row && toRecord(row);
}

/**
 * A scheduled bot still waiting for its time: requested, with a `join_at`, not yet claimed by a
 * launch. It holds no bot slot, so it is left out of the concurrent-bot count and GET /bots/status.
 */
function notWaitingScheduled(query: Knex.QueryBuilder): void {
  query.whereNot((waiting) =>
    waiting.where('status', 'requested').whereNotNull('join_at').whereNull('launch_session_id'),
  );
}

/** The user's bots in flight that hold a slot (scheduled bots still waiting don't), except `exceptId`. */
export async function countLiveMeetings(db: Db, userId: number, exceptId?: number): Promise<number> {
  const row = await db('meetings')
    .where({ user_id: userId })
    .whereIn('status', NON_TERMINAL_STATUSES)
    .where(notWaitingScheduled)
    .modify((query) => {
      if (exceptId !== undefined) query.whereNot('id', exceptId);
    })
    .count<{ count: number }>({ count: '*' })
    .first();
  return Number(row?.count ?? 0);
}

/** The user's bots in flight, scheduled bots still waiting for their time left out. */
export async function listLiveMeetings(db: Db, userId: number): Promise<MeetingRecord[]> {
  const rows = await db<MeetingRow>('meetings')
    .where({ user_id: userId })
    .whereIn('status', NON_TERMINAL_STATUSES)
    .where(notWaitingScheduled)
    .orderBy(NEWEST_FIRST);
  return rows.map(toRecord);
}
