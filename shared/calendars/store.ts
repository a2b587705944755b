import { randomUUID } from 'node:crypto';
import type { Db } from '../infra/knex.js';

export const FEED_EVENT_CHOICES = ['all', 'marked'] as const;
export type FeedEventChoice = (typeof FEED_EVENT_CHOICES)[number];
export const DEFAULT_FEED_MARKER = '#notetaker';
/** Notes kept of one poll (the first ones). */
const MAX_NOTES = 20;

/** What one poll did: when, whether the feed was read, and what changed in its bots. */
export interface FeedPollOutcome {
  at: Date;
  ok: boolean;
  /** Why the feed could not be read (or why some events were left out), in words. */
  error: string | null;
  /** Occurrences within the horizon that got (or keep) a bot. */
  occurrences: number;
  scheduled: number;
  moved: number;
  cancelled: number;
  /** Events left out and why: an unknown time zone, a link the service can't follow. */
  notes: Array<{ uid: string; reason: string }>;
}

export interface CalendarFeedRecord {
  id: number;
  userId: number;
  url: string;
  /** The bots' name; null: the deployment's DEFAULT_BOT_NAME. */
  botName: string | null;
  events: FeedEventChoice;
  marker: string;
  createdAt: Date;
  updatedAt: Date;
  nextPollAt: Date;
  lastPoll: FeedPollOutcome | null;
}

/** A feed a poller holds the lease of: `leaseToken` proves it when the poll is recorded. */
export interface ClaimedFeed extends CalendarFeedRecord {
  leaseToken: string;
}

interface FeedRow {
  id: number;
  user_id: number;
  url: string;
  bot_name: string | null;
  events: FeedEventChoice;
  marker: string;
  created_at: Date;
  updated_at: Date;
  next_poll_at: Date;
  lease_token: string | null;
  lease_until: Date | null;
  leased_at: Date | null;
  last_poll_at: Date | null;
  last_poll_ok: boolean | null;
  last_poll_error: string | null;
  last_poll_occurrences: number | null;
  last_poll_scheduled: number | null;
  last_poll_moved: number | null;
  last_poll_cancelled: number | null;
  last_poll_notes: Array<{ uid: string; reason: string }> | null;
}

function toRecord(row: FeedRow): CalendarFeedRecord {
  return {
    id: row.id,
    userId: row.user_id,
    url: row.url,
    botName: row.bot_name,
    events: row.events,
    marker: row.marker,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    nextPollAt: row.next_poll_at,
    lastPoll: row.last_poll_at
      ? {
          at: row.last_poll_at,
          ok: row.last_poll_ok ?? false,
          error: row.last_poll_error,
          occurrences: row.last_poll_occurrences ?? 0,
          scheduled: row.last_poll_scheduled ?? 0,
          moved: row.last_poll_moved ?? 0,
          cancelled: row.last_poll_cancelled ?? 0,
          notes: row.last_poll_notes ?? [],
        }
      : null,
  };
}

export interface NewFeed {
  userId: number;
  url: string;
  botName: string | null;
  events: FeedEventChoice;
  marker: string;
}

export async function insertFeed(db: Db, feed: NewFeed): Promise<CalendarFeedRecord> {
  const [row] = await db<FeedRow>('calendar_feeds')
    .insert({
      user_id: feed.userId,
      url: feed.url,
      bot_name: feed.botName,
      events: feed.events,
      marker: feed.marker,
    })
    .returning('*');
  return toRecord(row!);
}

export async function countUserFeeds(db: Db, userId: number): Promise<number> {
  const [row] = await db('calendar_feeds').where({ user_id: userId }).count({ count: '*' });
  return Number(row?.count ?? 0);
}

export async function listUserFeeds(db: Db, userId: number): Promise<CalendarFeedRecord[]> {
  const rows = await db<FeedRow>('calendar_feeds').where({ user_id: userId }).orderBy('id');
  return rows.map(toRecord);
}

export async function findUserFeed(
  db: Db,
  userId: number,
  id: number,
): Promise<CalendarFeedRecord | undefined> {
  const row = await db<FeedRow>('calendar_feeds').where({ user_id: userId, id }).first();
  return row && toRecord(row);
}

export interface FeedChanges {
  url?: string | undefined;
  botName?: string | null | undefined;
  events?: FeedEventChoice | undefined;
  marker?: string | undefined;
}

/** Applies the changes; the feed is polled again soon, with them. Undefined: no such feed of the user. */
export async function updateFeed(
  db: Db,
  userId: number,
  id: number,
  changes: FeedChanges,
): Promise<CalendarFeedRecord | undefined> {
  const update: Record<string, unknown> = { updated_at: db.fn.now(), next_poll_at: db.fn.now() };
  if (changes.url !== undefined) update.url = changes.url;
  if (changes.botName !== undefined) update.bot_name = changes.botName;
  if (changes.events !== undefined) update.events = changes.events;
  if (changes.marker !== undefined) update.marker = changes.marker;
  const [row] = await db<FeedRow>('calendar_feeds')
    .where({ user_id: userId, id })
    .update(update)
    .returning('*');
  return row && toRecord(row);
}

export async function deleteFeed(db: Db, userId: number, id: number): Promise<boolean> {
  return (await db('calendar_feeds').where({ user_id: userId, id }).delete()) > 0;
}

/**
 * Takes the lease of up to `limit` feeds due for a poll whose lease is free or expired, in turns
 * between users: each user's oldest due feed first, a user with feeds already being polled (by any
 * worker) further back, then the oldest due. Rows another poller is taking at the same moment are
 * skipped (SKIP LOCKED), so with several workers each feed is polled by one at a time.
 */
export async function claimDueFeeds(
  db: Db,
  options: { leaseSeconds: number; limit: number },
): Promise<ClaimedFeed[]> {
  const token = randomUUID();
  const { rows } = (await db.raw(
    `WITH in_hand AS (
       SELECT user_id, count(*) AS polling FROM calendar_feeds WHERE lease_until >= now() GROUP BY user_id
     ), turns AS (
       SELECT f.id, f.next_poll_at,
              row_number() OVER (PARTITION BY f.user_id ORDER BY f.next_poll_at, f.id)
                + coalesce(h.polling, 0) AS turn
         FROM calendar_feeds f LEFT JOIN in_hand h ON h.user_id = f.user_id
        WHERE f.next_poll_at <= now() AND (f.lease_until IS NULL OR f.lease_until < now())
     ), picked AS (
       SELECT f.id FROM calendar_feeds f JOIN turns t ON t.id = f.id
        WHERE f.next_poll_at <= now() AND (f.lease_until IS NULL OR f.lease_until < now())
        ORDER BY t.turn, t.next_poll_at, f.id
        LIMIT ?
        FOR UPDATE OF f SKIP LOCKED
     )
     UPDATE calendar_feeds SET lease_token = ?, leased_at = now(), lease_until = now() + make_interval(secs => ?)
      WHERE id IN (SELECT id FROM picked)
      RETURNING *`,
    [options.limit, token, options.leaseSeconds],
  )) as { rows: FeedRow[] };
  return rows.map((row) => ({ ...toRecord(row), leaseToken: token }));
}

/**
 * Records a poll's outcome, frees the lease and sets the next poll, only while the lease is still
 * this poller's (a poll that outlived its lease records nothing). The next poll comes sooner when the
 * feed was changed meanwhile (PATCH sets next_poll_at to now).
 */
export async function finishPoll(
  db: Db,
  feed: Pick<ClaimedFeed, 'id' | 'leaseToken'>,
  outcome: Omit<FeedPollOutcome, 'at'>,
  nextPollSeconds: number,
): Promise<boolean> {
  const updated = await db('calendar_feeds')
    .where({ id: feed.id, lease_token: feed.leaseToken })
    .update({
      lease_token: null,
      lease_until: null,
      leased_at: null,
      next_poll_at: db.raw(
        'CASE WHEN updated_at > leased_at THEN now() ELSE now() + make_interval(secs => ?) END',
        [nextPollSeconds],
      ),
      last_poll_at: db.fn.now(),
      last_poll_ok: outcome.ok,
      last_poll_error: outcome.error,
      last_poll_occurrences: outcome.occurrences,
      last_poll_scheduled: outcome.scheduled,
      last_poll_moved: outcome.moved,
      last_poll_cancelled: outcome.cancelled,
      last_poll_notes: JSON.stringify(outcome.notes.slice(0, MAX_NOTES)),
    });
  return updated > 0;
}

/** Whether the poller still holds the feed's lease (not expired and taken by another, nor the feed deleted). */
export async function holdsLease(db: Db, feed: Pick<ClaimedFeed, 'id' | 'leaseToken'>): Promise<boolean> {
  const row = await db('calendar_feeds').where({ id: feed.id, lease_token: feed.leaseToken }).first('id');
  return row !== undefined;
}
