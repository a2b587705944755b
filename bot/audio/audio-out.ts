import type { Redis } from 'ioredis';
import {
  AUDIO_STREAM_MAXLEN,
  AUDIO_WANTED_CHECK_MS,
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

/** The bot's audio stream, and the key that exists while someone listens to it (audio-stream.ts). */
export interface AudioOutKeys {
  stream: string;
  wanted: string;
}

/**
 * Publishes the captured chunks on the bot's audio stream while someone listens, fire and forget:
 * each XADD trims the stream to AUDIO_STREAM_MAXLEN entries, and a chunk that would make more than
 * MAX_APPENDS_IN_FLIGHT appends wait is dropped and counted. Whether anyone listens is the wanted
 * key's existence, asked with one EXISTS at the first chunk and then at most every
 * AUDIO_WANTED_CHECK_MS, from `publish` without waiting for the answer (no timer to stop): one small
 * command a second, where publishing regardless cost 5 appends of 6.4 KB (32 KB/s per bot, into
 * Redis and its AOF, docs/benchmarks.md). Chunks nobody listens to are counted as `unheard`; `seq`
 * counts every captured chunk, sent or not. A check that fails keeps the last answer; one refused
 * for want of the permission (a Redis user made by a worker older than this bot) means publishing
 * always, as bots did before.
 */
export class RedisAudioOut implements AudioOut {
  private seq = 0;
  private inFlight = 0;
  private dropped = 0;
  private unheard = 0;
  private failed = 0;
  private lastWarnAt = 0;
  /** What the last EXISTS that answered said; nobody listens until one did. */
  private wanted = false;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | null = null;
  /** False once Redis refused EXISTS to this bot's user: then it publishes always. */
  private askable = true;

  constructor(
    private readonly redis: Pick<Redis, 'xadd' | 'exists'>,
    private readonly keys: AudioOutKeys,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  publish(chunk: Omit<AudioChunkHeader, 'seq'>, samples: Int16Array): void {
    const seq = this.seq++;
    if (this.askable && this.now() - this.checkedAt >= AUDIO_WANTED_CHECK_MS) void this.checkListeners();
    if (!this.wanted) {
      this.unheard += 1;
      return;
    }
    if (this.inFlight >= MAX_APPENDS_IN_FLIGHT) {
      this.dropped += 1;
      this.warn('audio stream appends are slow; dropping chunks');
      return;
    }
    const pcm = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
    this.inFlight += 1;
    this.redis
      .xadd(
        this.keys.stream,
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

  /**
   * Asks Redis now whether anyone listens; resolves once it answered (never rejects). One question
   * at a time: while one is unanswered, this is that one.
   */
  checkListeners(): Promise<void> {
    if (this.checking) return this.checking;
    this.checkedAt = this.now();
    this.checking = this.redis
      .exists(this.keys.wanted)
      .then(
        (count) => {
          this.wanted = count > 0;
        },
        (error: unknown) => {
          if (String((error as Error)?.message).includes('NOPERM')) {
            this.askable = false;
            this.wanted = true;
            this.log.warn('this bot may not ask whether anyone listens; it publishes its audio always');
            return;
          }
          this.warn('could not ask whether anyone listens to the audio', error);
        },
      )
      .finally(() => {
        this.checking = null;
      });
    return this.checking;
  }

  stats(): { published: number; dropped: number; unheard: number; failed: number } {
    return {
      published: this.seq - this.dropped - this.unheard,
      dropped: this.dropped,
      unheard: this.unheard,
      failed: this.failed,
    };
  }

  /** At most one line a minute: a slow Redis must not flood the log either. */
  private warn(message: string, error?: unknown): void {
    const now = Date.now();
    if (now - this.lastWarnAt < 60_000) return;
    this.lastWarnAt = now;
    this.log.warn({ err: error, dropped: this.dropped, failed: this.failed }, message);
  }
}
