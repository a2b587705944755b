import type { Redis } from 'ioredis';
import { botAliveKey, parseBotAliveState } from '../../shared/contract/streams.js';
import { PeriodicLoop } from '../../shared/infra/background-loop.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { BotFleet } from './bot-fleet.js';

export interface BotLag {
  meetingId: number;
  containerId: string;
  lagSeconds: number;
  lagging: boolean;
}

const DEFAULT_INTERVAL_MS = 2000;

/**
 * Reads how far each of this worker's bots is behind and whether it is still settling in (the bot
 * keeps both in its alive key) and tells the fleet, which stops taking launches while any of them
 * lags or settles and takes them again once they have all caught up and settled. The latest
 * readings feed the worker's lag metric.
 */
export class BotLagWatch {
  private readings = new Map<string, BotLag>();
  private readonly checks: PeriodicLoop;

  constructor(
    private readonly deps: { redis: Redis; prefix: string; fleet: BotFleet; log: Logger },
    intervalMs = DEFAULT_INTERVAL_MS,
  ) {
    this.checks = new PeriodicLoop({
      intervalMs,
      task: () => this.check(),
      onError: (error) => deps.log.warn({ err: error }, 'could not check the bots’ lag'),
      holdsProcess: false,
    });
  }

  start(): void {
    this.checks.start();
  }

  /** Waits for a check in progress. */
  stop(): Promise<void> {
    return this.checks.stop();
  }

  /** The latest reading of every bot this worker runs. */
  lags(): BotLag[] {
    return [...this.readings.values()];
  }

  /** One look at every bot (also what the timer runs). */
  async check(): Promise<void> {
    this.deps.fleet.expireSettling();
    const bots = this.deps.fleet.list();
    if (bots.length === 0) {
      this.readings = new Map();
      return;
    }
    let raw: Array<string | null>;
    try {
      raw = await this.deps.redis.mget(...bots.map((bot) => botAliveKey(this.deps.prefix, bot.sessionId)));
    } catch (error) {
      this.deps.log.warn({ err: error }, 'could not read the bots’ lag');
      return;
    }
    const readings = new Map<string, BotLag>();
    bots.forEach((bot, index) => {
      const state = parseBotAliveState(raw[index] ?? null);
      // A bot that says nothing of its lag (starting, or an older image) is not held against the worker.
      const reading = {
        meetingId: bot.meetingId,
        containerId: bot.containerId,
        lagSeconds: state?.lagSeconds ?? 0,
        lagging: state?.lagging ?? false,
      };
      readings.set(bot.containerId, reading);
      // Not heard from yet (starting): settling since its container started, up to the limit.
      if (state) this.deps.fleet.setSettling(bot.containerId, state.settling);
      if (!this.deps.fleet.setLagging(bot.containerId, reading.lagging)) return;
      const fields = {
        meetingId: bot.meetingId,
        containerId: bot.containerId,
        lagSeconds: reading.lagSeconds,
      };
      if (reading.lagging) this.deps.log.warn(fields, 'a bot is falling behind: not taking launches');
      else this.deps.log.info(fields, 'the bot caught up');
    });
    this.readings = readings;
  }
}
