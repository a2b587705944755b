import type { Redis } from 'ioredis';
import type { BotCommand } from '../contract/commands.js';
import { streamFields } from '../contract/stream-codec.js';
import { botCommandsStream } from '../contract/streams.js';
import { withTimeout } from '../infra/async.js';

/** A meeting's command stream outlives its bot by this long, then Redis drops it. */
const COMMAND_STREAM_TTL_SECONDS = 7 * 24 * 3600;
/** A command that hasn't reached Redis by then won't: answer the caller instead of hanging. */
const SEND_TIMEOUT_MS = 5000;

/** Sends commands to running bots. An interface so unit tests can pass a fake. */
export interface BotCommands {
  send(meetingId: number, command: BotCommand): Promise<void>;
}

/**
 * Commands travel on the meeting's durable command stream, which the bot reads from its first entry:
 * a command sent before the bot started, or while its worker restarts, still reaches it.
 */
export function redisBotCommands(redis: Redis, prefix: string): BotCommands {
  return {
    async send(meetingId, command) {
      const stream = botCommandsStream(prefix, meetingId);
      await withTimeout(
        redis
          .multi()
          .xadd(stream, 'MAXLEN', '~', 1000, '*', ...streamFields(command))
          .expire(stream, COMMAND_STREAM_TTL_SECONDS)
          .exec()
          .then((results) => {
            const failure = results?.find(([error]) => error);
            if (failure) throw failure[0];
          }),
        SEND_TIMEOUT_MS,
        'sending the bot command',
      );
    },
  };
}
