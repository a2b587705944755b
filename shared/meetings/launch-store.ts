import { NON_TERMINAL_STATUSES } from '../contract/meeting-status.js';
import type { Db } from '../infra/knex.js';
import { type MeetingRecord, type MeetingRow, toMeetingRecord } from './store.js';

/**
 * The worker's launch protocol on a meeting's row: which worker and bot session own its launch
 * (claim), giving it up for a relaunch after a lost host, the started container, and what the
 * reconciler and host recovery look for. Only the worker uses these; the API's reads and edits are
 * in store.ts.
 */

/**
 * Claims a meeting's launch for one worker and session: a requested meeting, or a live one whose
 * bot is being relaunched (its session was released). Only one claim can ever succeed, so retries,
 * stalled jobs and several worker replicas never start two bots for one meeting.
 */
export async function claimLaunch(
  db: Db,
  meetingId: number,
  claim: { sessionId: string; workerId: string },
): Promise<MeetingRecord | undefined> {
  const [row] = await db<MeetingRow>('meetings')
    .where({ id: meetingId })
    .whereIn('status', NON_TERMINAL_STATUSES)
    .whereNull('launch_session_id')
    .update({
      launch_session_id: claim.sessionId,
      worker_id: claim.workerId,
      launched_at: db.fn.now() as unknown as Date,
      retry_due_at: null,
      updated_at: db.fn.now() as unknown as Date,
    })
    .returning('*');
  return row && toMeetingRecord(row);
}

/**
 * Takes a live meeting away from the bot session `fromSessionId` that was refused with a reason a
 * retry can help, so the retry's launch can claim it once `dueAt` has come, and counts the retry.
 * Only one caller can ever release a given session (the ingester and the exit handler may both read
 * the bot's final event), so a refusal is retried once. Undefined when the meeting ended or moved on.
 * `signIn` makes the retry a signed-in bot (the fallback of an anonymous one refused for sign-in).
 */
export async function releaseForRetry(
  db: Db,
  meetingId: number,
  fromSessionId: string,
  dueAt: Date,
  options: { signIn?: boolean } = {},
): Promise<MeetingRecord | undefined> {
  return releaseSession(db, meetingId, fromSessionId, {
    join_retries: db.raw('join_retries + 1') as unknown as number,
    retry_due_at: dueAt,
    ...(options.signIn ? { authenticated: true } : {}),
  });
}

/** Live meetings whose retry was due before `dueBefore` and that no launch has claimed yet. */
export async function listPendingRetriesDueBefore(db: Db, dueBefore: Date): Promise<MeetingRecord[]> {
  const rows = await db<MeetingRow>('meetings')
    .whereIn('status', NON_TERMINAL_STATUSES)
    .whereNull('launch_session_id')
    .andWhere('retry_due_at', '<', dueBefore)
    .orderBy('id');
  return rows.map(toMeetingRecord);
}

/**
 * Takes a live meeting away from the bot session `fromSessionId` so a new launch can claim it, and
 * counts the relaunch. Only one caller can ever release a given session, so a meeting is never
 * relaunched twice at once. Undefined when the meeting ended or was already moved.
 */
export async function releaseForRelaunch(
  db: Db,
  meetingId: number,
  fromSessionId: string,
): Promise<MeetingRecord | undefined> {
  return releaseSession(db, meetingId, fromSessionId, {
    relaunch_count: db.raw('relaunch_count + 1') as unknown as number,
    relaunch_requested_at: db.fn.now() as unknown as Date,
  });
}

/**
 * Clears a live meeting's launch (session, worker, container) if it still belongs to the bot session
 * `fromSessionId`, setting `counted` (what the release records) in the same statement: the one
 * caller whose update matches is the only one that released it.
 */
async function releaseSession(
  db: Db,
  meetingId: number,
  fromSessionId: string,
  counted: Partial<MeetingRow>,
): Promise<MeetingRecord | undefined> {
  const [row] = await db<MeetingRow>('meetings')
    .where({ id: meetingId, launch_session_id: fromSessionId })
    .whereIn('status', NON_TERMINAL_STATUSES)
    .update({
      launch_session_id: null,
      worker_id: null,
      launched_at: null,
      bot_container_id: null,
      ...counted,
      updated_at: db.fn.now() as unknown as Date,
    })
    .returning('*');
  return row && toMeetingRecord(row);
}

/** Live meetings waiting for a relaunch that no worker claimed since before `olderThan`. */
export async function listUnclaimedRelaunchesBefore(db: Db, olderThan: Date): Promise<MeetingRecord[]> {
  const rows = await db<MeetingRow>('meetings')
    .whereIn('status', NON_TERMINAL_STATUSES)
    .whereNull('launch_session_id')
    // A retry waiting out its backoff is not a relaunch nobody took (listPendingRetriesDueBefore).
    .whereNull('retry_due_at')
    .andWhere('relaunch_requested_at', '<', olderThan);
  return rows.map(toMeetingRecord);
}

/**
 * Moves a live meeting's running bot from a worker that died to `toWorkerId`, if it is still that
 * worker's and that bot's: a compare-and-set, so of several workers taking it over at once one does.
 */
export async function takeOverLaunch(
  db: Db,
  meetingId: number,
  sessionId: string,
  fromWorkerId: string,
  toWorkerId: string,
): Promise<MeetingRecord | undefined> {
  const [row] = await db<MeetingRow>('meetings')
    .where({ id: meetingId, launch_session_id: sessionId, worker_id: fromWorkerId })
    .whereIn('status', NON_TERMINAL_STATUSES)
    .update({ worker_id: toWorkerId, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row && toMeetingRecord(row);
}

/** Records the started container, unless the meeting has already ended (then nothing changes). */
export async function recordBotContainer(
  db: Db,
  meetingId: number,
  sessionId: string,
  containerId: string,
): Promise<MeetingRecord | undefined> {
  const [row] = await db<MeetingRow>('meetings')
    .where({ id: meetingId, launch_session_id: sessionId })
    .whereIn('status', NON_TERMINAL_STATUSES)
    .update({ bot_container_id: containerId, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row && toMeetingRecord(row);
}

/**
 * Meetings still `requested` that no worker claimed since before `olderThan` (a scheduled one
 * counts from its `join_at`, so it is not overdue while it waits), oldest first.
 */
export async function listUnclaimedRequestedBefore(
  db: Db,
  olderThan: Date,
  limit = 10_000,
): Promise<MeetingRecord[]> {
  const rows = await db<MeetingRow>('meetings')
    .where({ status: 'requested' })
    .whereNull('launch_session_id')
    .whereNull('relaunch_requested_at')
    .whereNull('retry_due_at')
    .andWhere(db.raw('coalesce(join_at, created_at)'), '<', olderThan)
    .orderBy('id')
    .limit(limit);
  return rows.map(toMeetingRecord);
}

/** Non-terminal meetings whose bot this worker launched. */
export async function listLiveMeetingsOfWorker(db: Db, workerId: string): Promise<MeetingRecord[]> {
  const rows = await db<MeetingRow>('meetings')
    .where({ worker_id: workerId })
    .whereIn('status', NON_TERMINAL_STATUSES);
  return rows.map(toMeetingRecord);
}
