import { lockUserForUpdate } from '../accounts/users-store.js';
import { cancelWaitingBot } from '../bots/scheduled-bots.js';
import type { BotServiceDeps } from '../bots/service.js';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  SpecErrors,
  UnauthorizedError,
} from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import { checkOutboundUrl, type OutboundAddressPolicy } from '../infra/outbound-address-policy.js';
import { listWaitingScheduled } from '../meetings/schedule-store.js';
import { feedKeyPrefix } from './plan.js';
import {
  type CalendarFeedRecord,
  countUserFeeds,
  deleteFeed,
  type FeedChanges,
  findUserFeed,
  insertFeed,
  listUserFeeds,
  type NewFeed,
  updateFeed,
} from './store.js';
import { CALENDAR_SOURCE } from './sync.js';

export interface CalendarFeedDeps {
  db: Knex;
  /** The webhook address rules, which feed URLs follow too. */
  webhookPolicy: OutboundAddressPolicy;
  /** CALENDAR_FEED_MAX_PER_USER */
  maxPerUser: number;
  /** What cancelling a deleted feed's waiting bots needs. */
  bots: Pick<BotServiceDeps, 'db' | 'events' | 'announce'>;
}

const FEED_NOT_FOUND = 'Calendar feed not found';

/**
 * A feed URL under the webhook address rules. A `webcal://` (or `webcals://`) subscription link, as
 * calendar apps hand them out, is the same feed over https.
 */
async function checkedUrl(url: string, policy: OutboundAddressPolicy): Promise<string> {
  const check = await checkOutboundUrl(url.trim().replace(/^webcals?:\/\//i, 'https://'), policy);
  if (!check.ok) throw new BadRequestError(`url: ${check.reason}`);
  return check.url.toString();
}

/**
 * Registers a feed; it is polled at once by a worker. The URL follows the webhook address rules; the
 * per-user limit is counted under the user's row lock, so parallel requests never pass it together.
 */
export async function createCalendarFeed(
  deps: CalendarFeedDeps,
  userId: number,
  feed: Omit<NewFeed, 'userId'>,
): Promise<CalendarFeedRecord> {
  const url = await checkedUrl(feed.url, deps.webhookPolicy);
  return deps.db.transaction(async (trx) => {
    if (!(await lockUserForUpdate(trx, userId))) throw new UnauthorizedError(SpecErrors.unauthorized);
    const count = await countUserFeeds(trx, userId);
    if (count >= deps.maxPerUser) {
      throw new ConflictError(
        `You have ${count} calendar feeds, the most allowed (CALENDAR_FEED_MAX_PER_USER is ${deps.maxPerUser}); delete one first`,
      );
    }
    return insertFeed(trx, { ...feed, url, userId });
  });
}

export function listCalendarFeeds(deps: Pick<CalendarFeedDeps, 'db'>, userId: number) {
  return listUserFeeds(deps.db, userId);
}

export async function getCalendarFeed(
  deps: Pick<CalendarFeedDeps, 'db'>,
  userId: number,
  id: number,
): Promise<CalendarFeedRecord> {
  const feed = await findUserFeed(deps.db, userId, id);
  if (!feed) throw new NotFoundError(FEED_NOT_FOUND);
  return feed;
}

/** Changes a feed's settings; it is polled again soon, and its bots follow at that poll. */
export async function changeCalendarFeed(
  deps: CalendarFeedDeps,
  userId: number,
  id: number,
  changes: FeedChanges,
): Promise<CalendarFeedRecord> {
  const url = changes.url === undefined ? undefined : await checkedUrl(changes.url, deps.webhookPolicy);
  const feed = await updateFeed(deps.db, userId, id, { ...changes, url });
  if (!feed) throw new NotFoundError(FEED_NOT_FOUND);
  return feed;
}

/**
 * Deletes a feed and cancels its bots still waiting for their time (bots that launched go on).
 * Returns how many were cancelled.
 */
export async function deleteCalendarFeed(
  deps: CalendarFeedDeps,
  userId: number,
  id: number,
): Promise<number> {
  if (!(await findUserFeed(deps.db, userId, id))) throw new NotFoundError(FEED_NOT_FOUND);
  // Deleted first, so a poll in progress can no longer record (its lease row is gone) nor be claimed again.
  if (!(await deleteFeed(deps.db, userId, id))) throw new NotFoundError(FEED_NOT_FOUND);
  let cancelled = 0;
  for (const meeting of await listWaitingScheduled(deps.db, userId, feedKeyPrefix(id))) {
    const done = await cancelWaitingBot(deps.bots, meeting.id, {
      source: CALENDAR_SOURCE,
      detail: `calendar feed ${id} was deleted`,
    });
    if (done) cancelled += 1;
  }
  return cancelled;
}
