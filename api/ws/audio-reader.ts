import type { Redis } from 'ioredis';
import { type AudioChunkHeader, parseAudioStreamEntry } from '../../shared/contract/audio-stream.js';
import { sleep } from '../../shared/infra/async.js';
import type { Logger } from '../../shared/infra/logger.js';

export type AudioChunkSink = (chunk: { header: AudioChunkHeader; pcm: Buffer }) => void;

/** How long one XREAD waits for new audio before looking again (and at a changed stream). */
const BLOCK_MS = 1000;
const ENTRIES_PER_READ = 50;

/**
 * Follows one bot's audio stream from its newest entry on (live audio only: nothing older than
 * the socket), on a Redis connection of its own since XREAD BLOCK holds it. `follow` switches to
 * another stream (a relaunched bot has a new session) or to none.
 */
export class AudioStreamReader {
  private stream: string | null = null;
  private lastId: string | null = null;
  private closed = false;
  private wake: (() => void) | null = null;
  readonly done: Promise<void>;

  constructor(
    private readonly redis: Redis,
    private readonly sink: AudioChunkSink,
    private readonly log: Logger,
  ) {
    this.done = this.run();
  }

  /**
   * Follows `stream` from its newest entry: resolves once that entry is known, so every chunk
   * appended after the call reaches the sink. A read still blocked on the previous stream ends
   * within BLOCK_MS.
   */
  async follow(stream: string | null): Promise<void> {
    if (stream === this.stream) return;
    this.stream = stream;
    this.lastId = null;
    if (stream === null) return;
    const newest = await this.redis.xrevrange(stream, '+', '-', 'COUNT', 1);
    if (this.stream !== stream || this.lastId !== null) return;
    this.lastId = newest[0]?.[0] ?? '0-0';
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
    this.redis.disconnect();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      const stream = this.stream;
      const lastId = this.lastId;
      if (stream === null || lastId === null) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = null;
        continue;
      }
      try {
        const answer = await this.redis.xreadBuffer(
          'COUNT',
          ENTRIES_PER_READ,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          stream,
          lastId,
        );
        if (this.closed || stream !== this.stream || !answer) continue;
        for (const [, entries] of answer) {
          for (const [id, fields] of entries) {
            this.lastId = id.toString();
            const chunk = parseAudioStreamEntry(fields);
            if (chunk) this.sink(chunk);
          }
        }
      } catch (error) {
        if (this.closed) return;
        this.log.warn({ err: error }, 'reading the audio stream failed; retrying');
        await sleep(1000);
      }
    }
  }
}
