import type { Redis } from 'ioredis';
import type { Logger } from '../shared/infra/logger.js';
import { type BotCommand, botCommand } from '../shared/contract/commands.js';
import { STREAM_FIELD } from '../shared/contract/streams.js';

const BLOCK_MS = 2000;

/**
 * Reads the meeting's durable command stream from its first entry, so a command sent before the
 * bot started (or while it was busy) still reaches it. Uses its own connection: XREAD BLOCK would
 * otherwise hold up the outbox's appends.
 */
export class CommandReader {
  private running = false;
  private loop: Promise<void> | null = null;
  private lastId = '0';

  constructor(
    private readonly redis: Redis,
    private readonly stream: string,
    private readonly onCommand: (command: BotCommand) => void,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    // A blocked XREAD only returns at its timeout; disconnecting ends it at once.
    this.redis.disconnect();
    await this.loop;
  }

  private async run(): Promise<void> {
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
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private dispatch(id: string, fields: string[]): void {
    const index = fields.indexOf(STREAM_FIELD);
    const raw = index >= 0 && index % 2 === 0 ? fields[index + 1] : undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw ?? '');
    } catch {
      this.log.warn({ id }, 'ignoring a command that is not JSON');
      return;
    }
    const result = botCommand.safeParse(parsed);
    if (!result.success) {
      this.log.warn({ id, issues: result.error.issues }, 'ignoring an invalid command');
      return;
    }
    this.log.info({ id, command: result.data.type }, 'command received');
    this.onCommand(result.data);
  }
}
