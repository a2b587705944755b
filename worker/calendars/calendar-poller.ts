import type { Counter } from 'prom-client';
import type { BotServiceDeps } from '../../shared/bots/service.js';
import { type FeedPollSettings, pollFeed } from '../../shared/calendars/poll.js';
import { type ClaimedFeed, claimDueFeeds } from '../../shared/calendars/store.js';
import { PeriodicLoop } from '../../shared/infra/background-loop.js';
import type { Config } from '../../shared/infra/config.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { OutboundAddressPolicy } from '../../shared/infra/outbound-address-policy.js';

export interface CalendarPollerMetrics {
  /** meetbot_calendar_feed_polls_total{outcome} */
  calendarFeedPolls: Counter;
  /** meetbot_calendar_feed_bot_changes_total{change} */
  calendarFeedBotChanges: Counter;
}

export interface CalendarPollerOptions {
  /** How often the poller looks for due feeds. */
  tickMs: number;
  /** How long a claimed feed stays this poller's before another may take it. */
  leaseSeconds: number;
  /** Feeds polled at once (CALENDAR_FEED_POLL_CONCURRENCY); 1 when not given. */
  concurrency?: number;
}

/** Feeds one tick polls at most, so a stop never waits on a long queue of them. */
const MAX_PER_TICK = 50;

/**
 * Polls the calendar feeds that are due, on every worker: each feed is claimed with a lease in
 * Postgres first (claimDueFeeds), so with several replicas one of them polls a feed at a time, and
 * a worker that dies mid-poll leaves a lease that expires. Up to `concurrency` feeds are polled at
 * once, and a free place goes to the user with the fewest feeds in hand, so one user's many or slow
 * feeds don't hold the others' back. A feed's expansion runs in a process of its own
 * (shared/calendars/expand-in-child.ts), so no feed holds this process's event loop. What a poll
 * does: shared/calendars/poll.ts.
 */
export class CalendarPoller {
  private readonly loop: PeriodicLoop;

  constructor(
    private readonly deps: {
      bots: BotServiceDeps;
      settings: FeedPollSettings;
      log: Logger;
      metrics?: CalendarPollerMetrics | undefined;
    },
    private readonly options: CalendarPollerOptions,
  ) {
    this.loop = new PeriodicLoop({
      intervalMs: options.tickMs,
      task: () => this.pollDue(),
      onError: (error) => deps.log.warn({ err: error }, 'calendar feed polling failed; trying again later'),
      runAtStart: true,
      holdsProcess: false,
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Waits for the polls in hand, so the database can be closed right after. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Polls every feed due now (up to a bound), several at once; returns how many it polled. */
  async pollDue(): Promise<number> {
    const concurrency = Math.max(1, this.options.concurrency ?? 1);
    const running = new Set<Promise<void>>();
    let claimed = 0;
    let noneDue = false;
    try {
      for (;;) {
        const room = Math.min(concurrency - running.size, MAX_PER_TICK - claimed);
        if (!noneDue && room > 0) {
          const feeds = await claimDueFeeds(this.deps.bots.db, {
            leaseSeconds: this.options.leaseSeconds,
            limit: room,
          });
          if (feeds.length === 0) noneDue = true;
          claimed += feeds.length;
          for (const feed of feeds) {
            const poll: Promise<void> = this.pollOne(feed).finally(() => running.delete(poll));
            running.add(poll);
          }
          if (feeds.length > 0) continue;
        }
        if (running.size === 0) break;
        await Promise.race(running);
      }
    } finally {
      await Promise.allSettled(running);
    }
    return claimed;
  }

  private async pollOne(feed: ClaimedFeed): Promise<void> {
    const { bots, settings, log, metrics } = this.deps;
    try {
      const result = await pollFeed(bots, settings, feed);
      metrics?.calendarFeedPolls.inc({ outcome: result.label });
      for (const change of ['scheduled', 'moved', 'cancelled'] as const) {
        if (result.outcome[change] > 0)
          metrics?.calendarFeedBotChanges.inc({ change }, result.outcome[change]);
      }
      const { ok, error, scheduled, moved, cancelled } = result.outcome;
      const fields = { feedId: feed.id, userId: feed.userId, ok, error, scheduled, moved, cancelled };
      if (!ok) log.info(fields, 'calendar feed could not be read');
      else if (scheduled + moved + cancelled > 0) log.info(fields, 'calendar feed polled');
      if (!result.recorded)
        log.warn({ feedId: feed.id }, 'calendar feed poll outlived its lease; not recorded');
    } catch (error) {
      // Its lease runs out and the feed is polled again then.
      log.warn({ err: error, feedId: feed.id }, 'calendar feed poll failed; its lease will expire');
    }
  }
}

/** The poll settings of the deployment's configuration. */
export function calendarFeedSettingsOf(
  config: Pick<
    Config,
    | 'CALENDAR_FEED_FETCH_TIMEOUT_MS'
    | 'CALENDAR_FEED_MAX_BYTES'
    | 'CALENDAR_FEED_MAX_REDIRECTS'
    | 'CALENDAR_FEED_LEAD_SECONDS'
    | 'CALENDAR_FEED_MAX_OCCURRENCES'
    | 'CALENDAR_FEED_MAX_EXPANSION_STEPS'
    | 'CALENDAR_FEED_EXPANSION_TIMEOUT_MS'
    | 'CALENDAR_FEED_EXPANSION_MEMORY_MB'
    | 'CALENDAR_FEED_POLL_INTERVAL_SECONDS'
  >,
  policy: OutboundAddressPolicy,
): FeedPollSettings {
  return {
    policy,
    fetch: {
      timeoutMs: config.CALENDAR_FEED_FETCH_TIMEOUT_MS,
      maxBytes: config.CALENDAR_FEED_MAX_BYTES,
      maxRedirects: config.CALENDAR_FEED_MAX_REDIRECTS,
    },
    leadSeconds: config.CALENDAR_FEED_LEAD_SECONDS,
    maxOccurrences: config.CALENDAR_FEED_MAX_OCCURRENCES,
    maxExpansionSteps: config.CALENDAR_FEED_MAX_EXPANSION_STEPS,
    expansion: {
      timeoutMs: config.CALENDAR_FEED_EXPANSION_TIMEOUT_MS,
      memoryMb: config.CALENDAR_FEED_EXPANSION_MEMORY_MB,
    },
    pollIntervalSeconds: config.CALENDAR_FEED_POLL_INTERVAL_SECONDS,
  };
}

/**
 * The poller looks for due feeds every 5 s (or each poll interval, when shorter); a lease lasts the
 * fetch's deadline, the expansion's and two minutes for the bots' changes.
 */
export function calendarPollerOptionsOf(
  config: Pick<
    Config,
    | 'CALENDAR_FEED_POLL_INTERVAL_SECONDS'
    | 'CALENDAR_FEED_FETCH_TIMEOUT_MS'
    | 'CALENDAR_FEED_EXPANSION_TIMEOUT_MS'
    | 'CALENDAR_FEED_POLL_CONCURRENCY'
  >,
): CalendarPollerOptions {
  return {
    tickMs: Math.min(config.CALENDAR_FEED_POLL_INTERVAL_SECONDS, 5) * 1000,
    leaseSeconds:
      Math.ceil((config.CALENDAR_FEED_FETCH_TIMEOUT_MS + config.CALENDAR_FEED_EXPANSION_TIMEOUT_MS) / 1000) +
      120,
    concurrency: config.CALENDAR_FEED_POLL_CONCURRENCY,
  };
}
