import type { Redis } from 'ioredis';
import {
  BOT_ALIVE_REFRESH_MS,
  BOT_ALIVE_TTL_MS,
  type BotAliveState,
  botAliveKey,
} from '../shared/contract/streams.js';
import type { Logger } from '../shared/infra/logger.js';

/**
 * Keeps the bot's alive key set while the bot runs. Workers read it before relaunching a meeting
 * whose worker went silent: a bot that still runs (only its worker died) is left alone, so a meeting
 * never gets two bots. The key expires by itself when the bot, its host or its network is gone.
 * It also carries how far the bot's transcription is behind, for the worker running it.
 */
export class Liveness {
  private timer: NodeJS.Timeout | undefined;
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    identity: { streamPrefix: string; sessionId: string },
    private readonly log: Logger,
    private readonly lag: () => Omit<BotAliveState, 'at'> = () => ({ lagSeconds: 0, lagging: false }),
  ) {
    this.key = botAliveKey(identity.streamPrefix, identity.sessionId);
  }

  start(): void {
    if (this.timer) return;
    const beat = () => {
      this.redis
        .set(this.key, JSON.stringify({ at: Date.now(), ...this.lag() }), 'PX', BOT_ALIVE_TTL_MS)
        .catch((error: unknown) => this.log.warn({ err: error }, 'could not refresh the alive key'));
    };
    beat();
    this.timer = setInterval(beat, BOT_ALIVE_REFRESH_MS);
    this.timer.unref();
  }

  /** The bot is done: say so at once rather than letting the key expire. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.redis.del(this.key).catch(() => undefined);
  }
}
