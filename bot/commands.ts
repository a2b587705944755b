import type { Redis } from 'ioredis';
import { type BotCommand, botCommand } from '../shared/contract/commands.js';
import { decodeStreamEntry } from '../shared/contract/stream-codec.js';
import { sleep } from '../shared/infra/async.js';
import { BackgroundLoop } from '../shared/infra/background-loop.js';
import type { Logger } from '../shared/infra/logger.js';

const BLOCK_MS = 2000;

/**
 * Reads the meeting's durable command stream from its first entry, so a command sent before the
 * bot started (or while it was busy) still reaches it. Uses its own connection: XREAD BLOCK would
 * otherwise hold up the outbox's appends.
 */
export class CommandReader extends BackgroundLoop {
  private lastId = '0';

  constructor(
    private readonly redis: Redis,
    private readonly stream: string,
    private readonly onCommand: (command: BotCommand) => void,
    private readonly log: Logger,
  ) {
    super();
  }

  /** A blocked XREAD only returns at its timeout; disconnecting ends it at once. */
  protected override interrupt(): void {
    this.redis.disconnect();
  }

  protected async run(): Promise<void> {
    while (this.running) {
      try {
        const reply = (await this.redis.xread('BLOCK', BLOCK_MS, 'STREAMS', this.stream, this.lastId)) as
          | [string, [string, string[]][]][]
          | null;
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            this.dispatch(id, fields);
          }
        }
      } catch (error) {
        if (!this.running) return;
        this.log.warn({ err: error }, 'reading commands failed; retrying');
        await sleep(1000);
      }
    }
  }

  private dispatch(id: string, fields: string[]): void {
    const decoded = decodeStreamEntry(botCommand, fields);
    if (!decoded.ok) {
      this.log.warn({ id, reason: decoded.reason }, 'ignoring an invalid command');
      return;
    }
    this.log.info({ id, command: decoded.value.type }, 'command received');
    this.onCommand(decoded.value);
  }
}
