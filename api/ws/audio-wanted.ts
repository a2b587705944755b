import type { Redis } from 'ioredis';
import { AUDIO_WANTED_REFRESH_MS, AUDIO_WANTED_TTL_MS } from '../../shared/contract/audio-stream.js';
import type { Logger } from '../../shared/infra/logger.js';

/**
 * Tells a bot that one audio socket listens: SETs the bot's wanted key (botAudioWantedKey) with
 * AUDIO_WANTED_TTL_MS at once, then again every AUDIO_WANTED_REFRESH_MS, for the bot the socket
 * follows now (a relaunched bot's new session included). `stop` only stops refreshing: the key is
 * never deleted, since another socket (on this replica or another) may still listen; it expires
 * within the TTL of its last listener. A SET that fails is logged and the next refresh tries
 * again: the audio starts late, the socket stays.
 */
export class AudioWantedRefresher {
  private key: string | null = null;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly redis: Pick<Redis, 'set'>,
    private readonly log: Logger,
    private readonly refreshMs = AUDIO_WANTED_REFRESH_MS,
  ) {}

  /** Says someone listens to the bot of `key` from now on (null: to no bot); resolves once SET answered. */
  async want(key: string | null): Promise<void> {
    if (this.stopped || key === this.key) return;
    this.key = key;
    this.timer ??= setInterval(() => void this.refresh(), this.refreshMs);
    await this.refresh();
  }

  stop(): void {
    this.stopped = true;
    this.key = null;
    clearInterval(this.timer);
  }

  private async refresh(): Promise<void> {
    const key = this.key;
    if (key === null) return;
    try {
      await this.redis.set(key, '1', 'PX', AUDIO_WANTED_TTL_MS);
    } catch (error) {
      this.log.warn({ err: error }, 'could not tell the bot that someone listens to its audio');
    }
  }
}
