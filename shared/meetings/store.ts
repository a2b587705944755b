import type { BotSettingsChange } from '../contract/commands.js';
import {
  allowedPredecessors,
  isTerminal,
  type MeetingStatus,
  type TranscriptionTask,
} from '../contract/meeting-status.js';
import type { Platform } from '../contract/platforms.js';
import type { Db, Knex } from '../infra/knex.js';
import { mergedData } from '../infra/merge-patch.js';

export interface MeetingRecord {
  id: number;
  userId: number;
  platform: Platform;
  nativeMeetingId: string;
  status: MeetingStatus;
  meetingUrl: string;
  passcode: string | null;
  botName: string;
  language: string | null;
  task: TranscriptionTask;
  botContainerId: string | null;
  startTime: Date | null;
  endTime: Date | null;
  data: Record<string, unknown>;
  launchSessionId: string | null;
  workerId: string | null;
  launchedAt: Date | null;
  /** How many times the meeting's bot was relaunched after its host was lost. */
  relaunchCount: number;
  /** When the latest relaunch was asked for (null if never). */
  relaunchRequestedAt: Date | null;
  /** Whether the bot records the meeting's audio (POST /bots `recording_enabled`). */
  recordingEnabled: boolean;
  /** When a scheduled bot launches (POST /bots `join_at`); null: at once. */
  joinAt: Date | null;
  /** The occurrence a scheduler created this meeting for (unique per user); null for POST /bots. */
  scheduleKey: string | null;
  /** The bot signs in with a bot account (POST /bots `authenticated`). */
  authenticated: boolean;
  /** The bot account its bot took at launch (null: anonymous, or not launched yet). */
  botAccountId: number | null;
  /** How many times the bot was launched again after a refusal a retry can help (worker/retries/join-retry-policy.ts). */
  joinRetries: number;
  /** When the pending retry is due; null when none is pending. */
  retryDueAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A `meetings` row as Postgres returns it (for this folder's store files only). */
export interface MeetingRow {
  id: number;
  user_id: number;
  platform: Platform;
  native_meeting_id: string;
  status: MeetingStatus;
  meeting_url: string;
  passcode: string | null;
  bot_name: string;
  language: string | null;
  task: TranscriptionTask;
  bot_container_id: string | null;
  start_time: Date | null;
  end_time: Date | null;
  data: Record<string, unknown>;
  launch_session_id: string | null;
  worker_id: string | null;
  launched_at: Date | null;
  relaunch_count: number;
  relaunch_requested_at: Date | null;
  recording_enabled: boolean;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_partial_segments: boolean;
  join_at: Date | null;
  schedule_key: string | null;
  authenticated: boolean;
  bot_account_id: number | null;
  join_retries: number;
  retry_due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Newest first; ties on the creation instant broken by id so the order is stable. */
export const NEWEST_FIRST = [
  { column: 'created_at', order: 'desc' as const },
  { column: 'id', order: 'desc' as const },
];

function toRecord(row: MeetingRow): MeetingRecord {
  return {
    id: row.id,
    userId: row.user_id,
    platform: row.platform,
    nativeMeetingId: row.native_meeting_id,
    status: row.status,
    meetingUrl: row.meeting_url,
    passcode: row.passcode,
    botName: row.bot_name,
    language: row.language,
    task: row.task,
    botContainerId: row.bot_container_id,
    startTime: row.start_time,
    endTime: row.end_time,
    data: row.data,
    launchSessionId: row.launch_session_id,
    workerId: row.worker_id,
    launchedAt: row.launched_at,
    relaunchCount: row.relaunch_count,
    relaunchRequestedAt: row.relaunch_requested_at,
    recordingEnabled: row.recording_enabled,
    joinAt: row.join_at,
    scheduleKey: row.schedule_key,
    authenticated: row.authenticated,
    botAccountId: row.bot_account_id,
    joinRetries: row.join_retries,
    retryDueAt: row.retry_due_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** For the folder's other store files (launch-store.ts, live-store.ts, schedule-store.ts). */
export const toMeetingRecord = toRecord;

export interface NewMeeting {
  userId: number;
  platform: Platform;
  nativeMeetingId: string;
  meetingUrl: string;
  passcode: string | null;
  botName: string;
  language: string | null;
  task: TranscriptionTask;
  /** Record the meeting's audio; false when not given. */
  recordingEnabled?: boolean | undefined;
  /** The bot's own webhook endpoint (instead of the user's); the secret defaults to the user's. */
  webhook?: { url: string; secret: string | null; partialSegments: boolean } | undefined;
  /** A scheduled bot: when it launches. */
  joinAt?: Date | undefined;
  /** The scheduler's name for the occurrence (unique per user). */
  scheduleKey?: string | undefined;
  /** The bot signs in with a bot account. */
  authenticated?: boolean | undefined;
}

export async function insertMeeting(db: Db, meeting: NewMeeting): Promise<MeetingRecord> {
  const [row] = await db<MeetingRow>('meetings')
    .insert({
      user_id: meeting.userId,
      platform: meeting.platform,
      native_meeting_id: meeting.nativeMeetingId,
      status: 'requested',
      meeting_url: meeting.meetingUrl,
      passcode: meeting.passcode,
      bot_name: meeting.botName,
      language: meeting.language,
      task: meeting.task,
      recording_enabled: meeting.recordingEnabled ?? false,
      webhook_url: meeting.webhook?.url ?? null,
      webhook_secret: meeting.webhook?.secret ?? null,
      webhook_partial_segments: meeting.webhook?.partialSegments ?? false,
      join_at: meeting.joinAt ?? null,
      ...(meeting.joinAt ? { data: { join_at: meeting.joinAt.toISOString() } } : {}),
      schedule_key: meeting.scheduleKey ?? null,
      authenticated: meeting.authenticated ?? false,
    })
    .returning('*');
  return toRecord(row!);
}

export async function findMeetingById(db: Db, meetingId: number): Promise<MeetingRecord | undefined> {
  const row = await db<MeetingRow>('meetings').where({ id: meetingId }).first();
  return row && toRecord(row);
}

/** Which of these meetings exist. */
export async function existingMeetingIds(db: Db, meetingIds: readonly number[]): Promise<Set<number>> {
  if (meetingIds.length === 0) return new Set();
  const rows: Array<{ id: number }> = await db('meetings').whereIn('id', meetingIds).select('id');
  return new Set(rows.map((row) => row.id));
}

/** A batch of a bot's messages split by whether their meeting still exists (a deleted one's are dropped). */
export async function splitByExistingMeeting<Item extends { meetingId: number }>(
  db: Db,
  items: readonly Item[],
): Promise<{ known: Item[]; unknownMeeting: Item[] }> {
  const meetings = await existingMeetingIds(db, [...new Set(items.map((item) => item.meetingId))]);
  return {
    known: items.filter((item) => meetings.has(item.meetingId)),
    unknownMeeting: items.filter((item) => !meetings.has(item.meetingId)),
  };
}

/** The advisory lock class of a meeting's numbered history ('LIVE'); the meeting id is the object. */
const HISTORY_LOCK_CLASS = 0x4c495645;

/**
 * Takes, until the transaction ends, the right to append to these meetings' numbered history
 * (segments' change numbers, chat message ids). Writers of one meeting then number and commit in
 * the same order, so the committed part of its history is always everything up to some number: a
 * live reader that has seen N (the SSE stream's Last-Event-ID, the WebSocket's cursor) has seen all
 * below N, even when two workers ingest the same bot's stream at once. Status changes get the same
 * order from the lock on the meeting's row. In id order, so two writers never wait on each other.
 */
export async function lockMeetingHistory(
  trx: Knex.Transaction,
  meetingIds: readonly number[],
): Promise<void> {
  const ids = [...new Set(meetingIds)].sort((a, b) => a - b);
  if (ids.length === 0) return;
  // One statement for a batch of many meetings: a volatile function in the select list runs after
  // ORDER BY, so the locks are still taken in id order.
  await trx.raw('SELECT pg_advisory_xact_lock(?, id) FROM unnest(?::integer[]) AS id ORDER BY id', [
    HISTORY_LOCK_CLASS,
    ids,
  ]);
}

/** Only the meetings' status and end time: what live readers re-read on every change (deleted ones are absent). */
export async function findMeetingsProgress(
  db: Db,
  meetingIds: readonly number[],
): Promise<Map<number, Pick<MeetingRecord, 'status' | 'endTime'>>> {
  if (meetingIds.length === 0) return new Map();
  const rows: Array<Pick<MeetingRow, 'id' | 'status' | 'end_time'>> = await db('meetings')
    .whereIn('id', meetingIds)
    .select('id', 'status', 'end_time');
  return new Map(rows.map((row) => [row.id, { status: row.status, endTime: row.end_time }]));
}

export async function findUserMeetingById(
  db: Db,
  userId: number,
  meetingId: number,
): Promise<MeetingRecord | undefined> {
  const row = await db<MeetingRow>('meetings').where({ id: meetingId, user_id: userId }).first();
  return row && toRecord(row);
}

/** The user's most recent meeting for this platform + native id, in any status. */
export async function findLatestMeeting(
  db: Db,
  userId: number,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord | undefined> {
  const row = await db<MeetingRow>('meetings')
    .where({ user_id: userId, platform, native_meeting_id: nativeMeetingId })
    .orderBy(NEWEST_FIRST)
    .first();
  return row && toRecord(row);
}

export async function listMeetings(
  db: Db,
  userId: number,
  page: { limit?: number | undefined; offset?: number | undefined } = {},
): Promise<MeetingRecord[]> {
  const query = db<MeetingRow>('meetings').where({ user_id: userId }).orderBy(NEWEST_FIRST);
  if (page.limit !== undefined) query.limit(page.limit);
  if (page.offset !== undefined) query.offset(page.offset);
  const rows = await query;
  return rows.map(toRecord);
}

export interface StatusMove {
  to: MeetingStatus;
  /** Optional extra column to set in the same update (the container id when the bot starts). */
  botContainerId?: string | null | undefined;
}

/**
 * The conditional update behind every status change: moves the meeting only from an allowed
 * predecessor, so two writers can never race it into an impossible state. Undefined when the move
 * is not allowed from the current status. Use transitionMeeting (transitions.ts), which also
 * records the change; this must run inside its transaction.
 */
export async function moveMeetingStatus(
  db: Db,
  meetingId: number,
  move: StatusMove,
): Promise<{ meeting: MeetingRecord; from: MeetingStatus } | undefined> {
  const previous = await db<MeetingRow>('meetings')
    .where({ id: meetingId })
    .whereIn('status', allowedPredecessors(move.to))
    // NO KEY UPDATE, not UPDATE: status changes of a meeting still queue behind one another, but
    // not behind the ingest's transactions, whose rows referencing the meeting take KEY SHARE on it
    // (a foreign-key check) while they hold the meeting's history lock a status change may want
    // next: with UPDATE the two deadlock.
    .forNoKeyUpdate()
    .first('status');
  if (!previous) return undefined;

  const update: Record<string, unknown> = { status: move.to, updated_at: db.fn.now() };
  if (move.to === 'active') update.start_time = db.raw('coalesce(start_time, now())');
  if (isTerminal(move.to)) {
    update.end_time = db.raw('coalesce(end_time, now())');
    update.bot_container_id = null;
  } else if (move.botContainerId !== undefined) {
    update.bot_container_id = move.botContainerId;
  }
  const [row] = await db<MeetingRow>('meetings').where({ id: meetingId }).update(update).returning('*');
  return { meeting: toRecord(row!), from: previous.status };
}

/**
 * Merges a data patch (null removes a member) and returns the meeting as updated: `tooLarge` when
 * the merged data would take more than `maxBytes` as JSON text (then nothing changes), undefined
 * when there is no such meeting. One statement, so concurrent patches can't together pass the cap.
 */
export async function mergeMeetingData(
  db: Db,
  meetingId: number,
  patch: Record<string, unknown>,
  maxBytes: number,
): Promise<MeetingRecord | 'tooLarge' | undefined> {
  const [row] = await db<MeetingRow>('meetings')
    .where({ id: meetingId })
    .andWhere(db.raw('octet_length((?)::text) <= ?', [mergedData(db, patch), maxBytes]))
    .update({
      data: mergedData(db, patch) as unknown as Record<string, unknown>,
      updated_at: db.fn.now() as unknown as Date,
    })
    .returning('*');
  if (row) return toRecord(row);
  return (await findMeetingById(db, meetingId)) ? 'tooLarge' : undefined;
}

/** Stores new bot settings, only while the meeting is still in the given status. */
export async function updateBotSettings(
  db: Db,
  meetingId: number,
  whileStatus: MeetingStatus,
  change: BotSettingsChange,
): Promise<MeetingRecord | undefined> {
  const update: Record<string, unknown> = { updated_at: db.fn.now() };
  if (change.language !== undefined) update.language = change.language;
  if (change.task !== undefined) update.task = change.task;
  if (change.botName !== undefined) update.bot_name = change.botName;
  const [row] = await db<MeetingRow>('meetings')
    .where({ id: meetingId, status: whileStatus })
    .update(update)
    .returning('*');
  return row && toRecord(row);
}

export async function deleteMeetings(db: Db, meetingIds: readonly number[]): Promise<number> {
  if (meetingIds.length === 0) return 0;
  return db('meetings').whereIn('id', meetingIds).delete();
}

export async function listUserMeetingsFor(
  db: Db,
  userId: number,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord[]> {
  const rows = await db<MeetingRow>('meetings')
    .where({ user_id: userId, platform, native_meeting_id: nativeMeetingId })
    .orderBy('id')
    .forUpdate();
  return rows.map(toRecord);
}

/**
 * A version of the user's meetings: their count, highest id (ids are never reused, so any insert
 * moves it) and the sum of their row versions (every update bumps one). It changes whenever
 * anything in the list does, whatever order concurrent transactions commit in.
 */
export async function meetingListVersion(db: Db, userId: number): Promise<string> {
  const row: { n: number; s: string; m: number } | undefined = await db('meetings')
    .where({ user_id: userId })
    .first(
      db.raw('count(*)::bigint AS n, coalesce(sum(row_version), 0)::text AS s, coalesce(max(id), 0) AS m'),
    );
  return `${row?.n ?? 0}.${row?.m ?? 0}.${row?.s ?? 0}`;
}
