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
  readonly done: Promise<void>;

  constructor(
    private readonly redis: Redis,
    private readonly sink: AudioChunkSink,
    private readonly log: Logger,
  ) {
    this.done = this.run();
  }

  follow(stream: string | null): void {
    if (stream === this.stream) return;
    this.stream = stream;
    this.lastId = null;
  }

  close(): void {
    this.closed = true;
    this.redis.disconnect();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      const stream = this.stream;
      if (stream === null) {
        await sleep(250);
        continue;
      }
      try {
        if (this.lastId === null) {
          const newest = await this.redis.xrevrange(stream, '+', '-', 'COUNT', 1);
          if (stream !== this.stream) continue;
          this.lastId = newest[0]?.[0] ?? '0-0';
        }
        const answer = await this.redis.xreadBuffer(
          'COUNT',
          ENTRIES_PER_READ,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          stream,
          this.lastId,
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
