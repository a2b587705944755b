import type { Redis } from 'ioredis';
import {
  BOT_ALIVE_REFRESH_MS,
  BOT_ALIVE_TTL_MS,
  type BotAliveState,
  botAliveKey,
} from '../shared/contract/streams.js';
import { PeriodicLoop } from '../shared/infra/background-loop.js';
import type { Logger } from '../shared/infra/logger.js';

/**
 * Keeps the bot's alive key set while the bot runs. Workers read it before relaunching a meeting
 * whose worker went silent: a bot that still runs (only its worker died) is left alone, so a meeting
 * never gets two bots. The key expires by itself when the bot, its host or its network is gone.
 * It also carries how far the bot's transcription is behind, for the worker running it.
 */
export class Liveness {
  private readonly key: string;
  private readonly beats: PeriodicLoop;

  constructor(
    private readonly redis: Redis,
    identity: { streamPrefix: string; sessionId: string },
    log: Logger,
    private readonly lag: () => Omit<BotAliveState, 'at'> = () => ({ lagSeconds: 0, lagging: false }),
  ) {
    this.key = botAliveKey(identity.streamPrefix, identity.sessionId);
    this.beats = new PeriodicLoop({
      intervalMs: BOT_ALIVE_REFRESH_MS,
      task: () =>
        this.redis.set(this.key, JSON.stringify({ at: Date.now(), ...this.lag() }), 'PX', BOT_ALIVE_TTL_MS),
      onError: (error) => log.warn({ err: error }, 'could not refresh the alive key'),
      runAtStart: true,
      holdsProcess: false,
    });
  }

  start(): void {
    this.beats.start();
  }

  /** The bot is done: say so at once rather than letting the key expire. */
  async stop(): Promise<void> {
    await this.beats.stop();
    await this.redis.del(this.key).catch(() => undefined);
  }
}
