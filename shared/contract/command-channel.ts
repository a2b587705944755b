import type { Redis } from 'ioredis';
import type { BotCommand } from './commands.js';
import { STREAM_FIELD, botCommandsStream } from './streams.js';

/** A meeting's command stream outlives its bot by this long, then Redis drops it. */
const COMMAND_STREAM_TTL_SECONDS = 7 * 24 * 3600;

/** Appends a command to the meeting's durable command stream, which the bot reads from the start. */
export async function sendBotCommand(
  redis: Redis,
  prefix: string,
  meetingId: number,
  command: BotCommand,
): Promise<void> {
  const stream = botCommandsStream(prefix, meetingId);
  await redis
    .multi()
    .xadd(stream, 'MAXLEN', '~', 1000, '*', STREAM_FIELD, JSON.stringify(command))
    .expire(stream, COMMAND_STREAM_TTL_SECONDS)
    .exec();
}
