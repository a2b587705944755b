import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { findUserById } from '../accounts/users-store.js';
import type { BotServiceDeps } from '../bots/service.js';
import type { OutboundAddressPolicy } from '../infra/outbound-address-policy.js';
import { type ExpansionLimits, expandFeedInChild } from './expand-in-child.js';
import { FeedFetchError, type FeedFetchLimits, fetchFeed } from './fetch-feed.js';
import { FeedOverBudgetError, IcsParseError } from './ics.js';
import { planFeed } from './plan.js';
import { type ClaimedFeed, type FeedPollOutcome, finishPoll, holdsLease } from './store.js';
import { syncFeedBots } from './sync.js';

export interface FeedPollSettings {
  policy: OutboundAddressPolicy;
  fetch: FeedFetchLimits;
  /** CALENDAR_FEED_LEAD_SECONDS */
  leadSeconds: number;
  /** CALENDAR_FEED_MAX_OCCURRENCES */
  maxOccurrences: number;
  /** CALENDAR_FEED_MAX_EXPANSION_STEPS */
  maxExpansionSteps: number;
  /** CALENDAR_FEED_EXPANSION_TIMEOUT_MS and CALENDAR_FEED_EXPANSION_MEMORY_MB */
  expansion: ExpansionLimits;
  /** CALENDAR_FEED_POLL_INTERVAL_SECONDS */
  pollIntervalSeconds: number;
}

/** How a poll ended, for the metric `meetbot_calendar_feed_polls_total{outcome}`. */
export type PollOutcomeLabel = 'ok' | 'fetch_failed' | 'invalid_feed' | 'over_budget' | 'failed';

export interface PollResult {
  label: PollOutcomeLabel;
  outcome: Omit<FeedPollOutcome, 'at'>;
  /** False when the lease was lost meanwhile (another poller's outcome stands). */
  recorded: boolean;
}

/** Occurrences that started this long ago are still read, so a waiting bot of one is not cancelled. */
const LOOK_BACK_MS = 86_400_000;

/**
 * One poll of a feed this poller holds the lease of: fetch, expand within the scheduled-bots
 * horizon, pick the occurrences with links, bring the bots in line, record the outcome. A feed that
 * can't be fetched or read changes no bot (its bots stay as the last good poll left them).
 */
export async function pollFeed(
  deps: BotServiceDeps,
  settings: FeedPollSettings,
  feed: ClaimedFeed,
): Promise<PollResult> {
  const empty = { occurrences: 0, scheduled: 0, moved: 0, cancelled: 0, notes: [] };
  let label: PollOutcomeLabel = 'ok';
  let outcome: Omit<FeedPollOutcome, 'at'>;
  try {
    const user = await findUserById(deps.db, feed.userId);
    if (!user) throw new Error('the feed’s user is gone');
    const auth: AuthenticatedKey = {
      keyId: 0,
      lastUsedAt: null,
      user: { id: user.id, email: user.email, maxConcurrentBots: user.maxConcurrentBots },
    };
    const text = await fetchFeed(feed.url, settings.policy, settings.fetch);
    const now = Date.now();
    const expansion = await expandFeedInChild(
      text,
      {
        from: new Date(now - LOOK_BACK_MS),
        to: new Date(now + deps.schedule.horizonDays * 86_400_000 - 60_000),
        maxOccurrences: settings.maxOccurrences,
        maxSteps: settings.maxExpansionSteps,
      },
      settings.expansion,
    );
    const plan = planFeed(feed, expansion, deps.extraMeetingOrigins);
    // The fetch took time: a feed deleted meanwhile, or taken by another poller after this lease
    // expired, must not get bots from this poll.
    if (!(await holdsLease(deps.db, feed)))
      return { label: 'ok', outcome: { ...empty, ok: true, error: null }, recorded: false };
    const report = await syncFeedBots(deps, auth, feed, plan.planned, {
      leadSeconds: settings.leadSeconds,
      now,
    });
    outcome = {
      ok: true,
      error: null,
      occurrences: plan.planned.length,
      scheduled: report.scheduled,
      moved: report.moved,
      cancelled: report.cancelled,
      notes: [...plan.notes, ...report.notes],
    };
  } catch (error) {
    if (error instanceof FeedFetchError) label = 'fetch_failed';
    else if (error instanceof IcsParseError) label = 'invalid_feed';
    else if (error instanceof FeedOverBudgetError) label = 'over_budget';
    else {
      label = 'failed';
      deps.log.error({ err: error, feedId: feed.id }, 'calendar feed poll failed');
    }
    const reason =
      label === 'failed' ? 'the poll failed on our side; it is tried again' : (error as Error).message;
    outcome = { ...empty, ok: false, error: reason };
  }
  const recorded = await finishPoll(deps.db, feed, outcome, settings.pollIntervalSeconds);
  return { label, outcome, recorded };
}
