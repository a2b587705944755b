import { TERMINAL_STATUSES } from '../contract/meeting-status.js';
import type { Platform } from '../contract/platforms.js';
import type { Db, Knex } from '../infra/knex.js';

export const BOT_ACCOUNT_STATUSES = ['active', 'expired', 'disabled'] as const;
export type BotAccountStatus = (typeof BOT_ACCOUNT_STATUSES)[number];

/** A bot account as everything but the launch sees it: never its session. */
export interface BotAccountRecord {
  id: number;
  platform: Platform;
  displayName: string;
  status: BotAccountStatus;
  statusReason: string | null;
  statusChangedAt: Date;
  /** Meetings using it now (not ended). */
  botsInUse: number;
  createdAt: Date;
  updatedAt: Date;
}

/** What a launch takes: the account and its sealed session. */
export interface TakenBotAccount {
  account: BotAccountRecord;
  sealedStorageState: Buffer;
}

interface BotAccountRow {
  id: number;
  platform: Platform;
  display_name: string;
  sealed_storage_state?: Buffer;
  status: BotAccountStatus;
  status_reason: string | null;
  status_changed_at: Date;
  created_at: Date;
  updated_at: Date;
  bots_in_use?: number | string;
}

/** Every column but the sealed session, which only takeBotAccount reads. */
const PUBLIC_COLUMNS = [
  'id',
  'platform',
  'display_name',
  'status',
  'status_reason',
  'status_changed_at',
  'created_at',
  'updated_at',
].map((column) => `bot_accounts.${column}`);

function toRecord(row: BotAccountRow, botsInUse = Number(row.bots_in_use ?? 0)): BotAccountRecord {
  return {
    id: row.id,
    platform: row.platform,
    displayName: row.display_name,
    status: row.status,
    statusReason: row.status_reason,
    statusChangedAt: row.status_changed_at,
    botsInUse,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The accounts with how many live meetings use each. */
function withBotsInUse(db: Db) {
  return db('bot_accounts').select(
    ...PUBLIC_COLUMNS,
    db.raw(
      `(SELECT count(*) FROM meetings m WHERE m.bot_account_id = bot_accounts.id AND m.status NOT IN (${TERMINAL_STATUSES.map(() => '?').join(', ')}))::int AS bots_in_use`,
      [...TERMINAL_STATUSES],
    ),
  );
}

export interface NewBotAccount {
  platform: Platform;
  displayName: string;
  sealedStorageState: Buffer;
}

export async function insertBotAccount(db: Db, account: NewBotAccount): Promise<BotAccountRecord> {
  const [row] = await db<BotAccountRow>('bot_accounts')
    .insert({
      platform: account.platform,
      display_name: account.displayName,
      sealed_storage_state: account.sealedStorageState,
    })
    .returning(PUBLIC_COLUMNS);
  return toRecord(row as BotAccountRow, 0);
}

export async function listBotAccounts(
  db: Db,
  page: { skip: number; limit: number },
): Promise<BotAccountRecord[]> {
  const rows = (await withBotsInUse(db).orderBy('id').offset(page.skip).limit(page.limit)) as BotAccountRow[];
  return rows.map((row) => toRecord(row));
}

export async function findBotAccount(db: Db, id: number): Promise<BotAccountRecord | undefined> {
  const row = (await withBotsInUse(db).where('bot_accounts.id', id).first()) as BotAccountRow | undefined;
  return row && toRecord(row);
}

export interface BotAccountChanges {
  displayName?: string | undefined;
  sealedStorageState?: Buffer | undefined;
  status?: { status: BotAccountStatus; reason: string | null } | undefined;
}

/** Applies the changes; false when there is no such account. */
export async function updateBotAccount(db: Db, id: number, changes: BotAccountChanges): Promise<boolean> {
  const update: Record<string, unknown> = { updated_at: db.fn.now() };
  if (changes.displayName !== undefined) update.display_name = changes.displayName;
  if (changes.sealedStorageState !== undefined) update.sealed_storage_state = changes.sealedStorageState;
  if (changes.status !== undefined) {
    update.status = changes.status.status;
    update.status_reason = changes.status.reason;
    update.status_changed_at = db.fn.now();
  }
  return (await db('bot_accounts').where({ id }).update(update)) > 0;
}

/** Locks the account's row for the rest of the transaction; false when there is none. */
export async function lockBotAccount(trx: Knex.Transaction, id: number): Promise<boolean> {
  return (await trx('bot_accounts').where({ id }).forUpdate().first('id')) !== undefined;
}

export async function deleteBotAccount(db: Db, id: number): Promise<boolean> {
  return (await db('bot_accounts').where({ id }).delete()) > 0;
}

export type TakeOutcome =
  | { taken: TakenBotAccount }
  /** No active account of the platform, or every one has `maxBots` bots already. */
  | { none: { active: number } }
  /** The meeting's user already holds its share of the pool: `held` live signed-in bots of `allowed`. */
  | { overShare: { held: number; allowed: number; pool: number } }
  /** The meeting ended (or already has an account) meanwhile. */
  | { meetingGone: true };

/**
 * How many live signed-in bots one user may hold on a pool of `pool` places (active accounts ×
 * maxBots): the share, rounded down, and always one, so a user is never locked out of a pool of one.
 */
export function userShareOfPool(pool: number, share: number): number {
  // The epsilon keeps 0.29 × 100 (28.999…96 in floating point) at 29.
  return Math.max(1, Math.floor(share * pool + 1e-9));
}

/**
 * Gives the meeting an active account of its platform with room (fewer than `maxBots` live meetings
 * on it), the least used first, unless the meeting's user already holds its share of the pool
 * (`userShare`, userShareOfPool): one user can't take every place. Race-free as the concurrent-bot
 * limit is: the pool's rows are locked (FOR UPDATE, in id order, so two takes never deadlock) before
 * their use and the user's are counted, and the meeting is marked in the same transaction, so a
 * concurrent take of the same platform waits and then counts this one. SKIP LOCKED would not wait,
 * but it would also answer "none free" while another launch merely holds the lock on an account that
 * still has room.
 */
export async function takeBotAccount(
  db: Knex,
  request: { meetingId: number; userId: number; platform: Platform; maxBots: number; userShare: number },
): Promise<TakeOutcome> {
  return db.transaction(async (trx) => {
    const pool = (await trx('bot_accounts')
      .where({ platform: request.platform, status: 'active' })
      .orderBy('id')
      .forUpdate()
      .select('*')) as Array<BotAccountRow & { sealed_storage_state: Buffer }>;
    if (pool.length === 0) return { none: { active: 0 } };
    const places = pool.length * request.maxBots;
    const allowed = userShareOfPool(places, request.userShare);
    // Every live signed-in bot of the user on this platform holds a place, whatever its account's
    // status now (an account expired under a running bot still carries it to the end).
    const [held] = (await trx('meetings')
      .where({ user_id: request.userId, platform: request.platform })
      .whereNot('id', request.meetingId)
      .whereNotNull('bot_account_id')
      .whereNotIn('status', TERMINAL_STATUSES)
      .count({ count: '*' })) as Array<{ count: number | string }>;
    const heldCount = Number(held?.count ?? 0);
    if (heldCount >= allowed) return { overShare: { held: heldCount, allowed, pool: places } };
    const counts = (await trx('meetings')
      .whereIn(
        'bot_account_id',
        pool.map((row) => row.id),
      )
      .whereNotIn('status', TERMINAL_STATUSES)
      .groupBy('bot_account_id')
      .select('bot_account_id')
      .count({ count: '*' })) as Array<{ bot_account_id: number; count: number | string }>;
    const inUse = new Map(counts.map((row) => [row.bot_account_id, Number(row.count)]));
    const chosen = pool
      .map((row) => ({ row, used: inUse.get(row.id) ?? 0 }))
      .filter(({ used }) => used < request.maxBots)
      .sort((a, b) => a.used - b.used || a.row.id - b.row.id)[0];
    if (!chosen) return { none: { active: pool.length } };
    const marked = await trx('meetings')
      .where({ id: request.meetingId })
      .whereNull('bot_account_id')
      .whereNotIn('status', TERMINAL_STATUSES)
      .update({ bot_account_id: chosen.row.id, updated_at: trx.fn.now() });
    if (marked === 0) return { meetingGone: true };
    return {
      taken: {
        account: toRecord(chosen.row, chosen.used + 1),
        sealedStorageState: chosen.row.sealed_storage_state,
      },
    };
  });
}

/** Whether the platform has an active bot account (full or not): one a signed-in launch may take. */
export async function hasActiveBotAccount(db: Db, platform: Platform): Promise<boolean> {
  const row = await db('bot_accounts').where({ platform, status: 'active' }).first('id');
  return row !== undefined;
}

/** The account a meeting took and its session (a relaunched bot signs in with the same one). */
export async function findBotAccountOfMeeting(
  db: Db,
  meetingId: number,
): Promise<TakenBotAccount | undefined> {
  const row = (await db('bot_accounts')
    .join('meetings', 'meetings.bot_account_id', 'bot_accounts.id')
    .where('meetings.id', meetingId)
    .first([...PUBLIC_COLUMNS, 'bot_accounts.sealed_storage_state'])) as
    | (BotAccountRow & { sealed_storage_state: Buffer })
    | undefined;
  return row && { account: toRecord(row), sealedStorageState: row.sealed_storage_state };
}

/**
 * Marks the account the meeting used `expired` (its session no longer signs in), which takes it out
 * of the pool; undefined when the meeting used none, or the account is not active any more.
 */
export async function expireBotAccountOfMeeting(
  db: Db,
  meetingId: number,
  reason: string,
): Promise<BotAccountRecord | undefined> {
  const [row] = (await db('bot_accounts')
    .where('status', 'active')
    .whereIn(
      'id',
      db('meetings').where({ id: meetingId }).whereNotNull('bot_account_id').select('bot_account_id'),
    )
    .update({
      status: 'expired',
      status_reason: reason,
      status_changed_at: db.fn.now(),
      updated_at: db.fn.now(),
    })
    .returning(PUBLIC_COLUMNS)) as BotAccountRow[];
  return row && toRecord(row);
}

/** How many accounts each platform has in each status (the metric). */
export async function countBotAccountsByStatus(
  db: Db,
): Promise<Array<{ platform: Platform; status: BotAccountStatus; count: number }>> {
  const rows = (await db('bot_accounts')
    .groupBy('platform', 'status')
    .select('platform', 'status')
    .count({ count: '*' })) as Array<{
    platform: Platform;
    status: BotAccountStatus;
    count: number | string;
  }>;
  return rows.map((row) => ({ ...row, count: Number(row.count) }));
}

/** The sign-in screens an account's signed-in bots met lately (SIGN_IN_EVIDENCE_HOURS). */
export interface SignInEvidence {
  /** Different users whose meetings with the account ended at a sign-in screen (`sign_in_expired`). */
  users: number;
  /** Different meetings (platform and native id) among those. */
  meetings: number;
}

/** How far back a sign-in screen counts as evidence against an account's session. */
export const SIGN_IN_EVIDENCE_HOURS = 24;

/**
 * The sign-in screens the account's bots met (meetings that ended `sign_in_expired`) in the last
 * SIGN_IN_EVIDENCE_HOURS and since the admin API last changed the account (registered, session
 * replaced, enabled: `updated_at`). A bot that got in is no evidence the other way: a signed-out
 * browser joins an open meeting as a guest. Call with the account's row locked (lockBotAccount), so
 * two such endings at once count each other.
 */
export async function signInEvidenceOfAccount(db: Db, accountId: number): Promise<SignInEvidence> {
  const result = await db.raw(
    `SELECT count(DISTINCT m.user_id)::int AS users,
            count(DISTINCT (m.platform, m.native_meeting_id))::int AS meetings
       FROM meetings m
       JOIN meeting_status_transitions t ON t.meeting_id = m.id
      WHERE m.bot_account_id = ?
        AND t.to_status = 'failed' AND t.reason = 'sign_in_expired'
        AND t.created_at > greatest(
              (SELECT updated_at FROM bot_accounts WHERE id = ?),
              now() - make_interval(hours => ?))`,
    [accountId, accountId, SIGN_IN_EVIDENCE_HOURS],
  );
  const row = (result.rows as Array<{ users: number; meetings: number }>)[0];
  return { users: row?.users ?? 0, meetings: row?.meetings ?? 0 };
}

/** The account a meeting took, if any. */
export async function botAccountIdOfMeeting(db: Db, meetingId: number): Promise<number | undefined> {
  const row = (await db('meetings').where({ id: meetingId }).first('bot_account_id')) as
    | { bot_account_id: number | null }
    | undefined;
  return row?.bot_account_id ?? undefined;
}
