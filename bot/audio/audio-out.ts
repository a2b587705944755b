import type { Redis } from 'ioredis';
import {
  AUDIO_STREAM_MAXLEN,
  type AudioChunkHeader,
  audioStreamFields,
} from '../../shared/contract/audio-stream.js';
import type { Logger } from '../../shared/infra/logger.js';

/** Where the session hands each captured chunk for the audio WebSocket (tests pass their own). */
export interface AudioOut {
  publish(chunk: Omit<AudioChunkHeader, 'seq'>, samples: Int16Array): void;
}

/**
 * Appends never waiting on more than this many: a slower Redis loses chunks (a gap in `seq`), the
 * bot neither waits nor queues more (about 50 KiB at most).
 */
export const MAX_APPENDS_IN_FLIGHT = 8;

/**
 * Publishes every captured chunk on the bot's audio stream, fire and forget: each XADD trims the
 * stream to AUDIO_STREAM_MAXLEN entries (Redis holds a few seconds whether or not anyone listens),
 * and a chunk that would make more than MAX_APPENDS_IN_FLIGHT appends wait is dropped and counted.
 * Always on: about 32 KB/s and 5 appends a second per bot (docs/benchmarks.md), cheaper than
 * asking Redis whether anyone listens.
 */
export class RedisAudioOut implements AudioOut {
  private seq = 0;
  private inFlight = 0;
  private dropped = 0;
  private failed = 0;
  private lastWarnAt = 0;

  constructor(
    private readonly redis: Pick<Redis, 'xadd'>,
    private readonly stream: string,
    private readonly log: Logger,
  ) {}

  publish(chunk: Omit<AudioChunkHeader, 'seq'>, samples: Int16Array): void {
    const seq = this.seq++;
    if (this.inFlight >= MAX_APPENDS_IN_FLIGHT) {
      this.dropped += 1;
      this.warn('audio stream appends are slow; dropping chunks');
      return;
    }
    const pcm = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    this.inFlight += 1;
    this.redis
      .xadd(
        this.stream,
        'MAXLEN',
        '~',
        AUDIO_STREAM_MAXLEN,
        '*',
        ...audioStreamFields({ ...chunk, seq }, pcm),
      )
      .catch((error: unknown) => {
        this.failed += 1;
        this.warn('could not append to the audio stream', error);
      })
      .finally(() => {
        this.inFlight -= 1;
      });
  }

  stats(): { published: number; dropped: number; failed: number } {
    return { published: this.seq - this.dropped, dropped: this.dropped, failed: this.failed };
  }

  /** At most one line a minute: a slow Redis must not flood the log either. */
  private warn(message: string, error?: unknown): void {
    const now = Date.now();
    if (now - this.lastWarnAt < 60_000) return;
    this.lastWarnAt = now;
    this.log.warn({ err: error, dropped: this.dropped, failed: this.failed }, message);
  }
}
