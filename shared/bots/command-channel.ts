import type { Redis } from 'ioredis';
import type { BotCommand } from '../contract/commands.js';
import { streamFields } from '../contract/stream-codec.js';
import { botCommandStreamsKey, botCommandsStream } from '../contract/streams.js';
import { withTimeout } from '../infra/async.js';
import { TooManyRequestsError } from '../infra/errors.js';

/** A meeting's command stream outlives its last command by this long, unless the worker deletes it first. */
const COMMAND_STREAM_TTL_SECONDS = 7 * 24 * 3600;
/** A command that hasn't reached Redis by then won't: answer the caller instead of hanging. */
const SEND_TIMEOUT_MS = 5000;
/** Entries kept by count, as before the byte budget: control commands are bounded by it. */
const COMMAND_STREAM_MAX_ENTRIES = 1000;
/**
 * A running bot reads its command stream continuously (a blocking XREAD that returns as soon as an
 * entry lands), and a bot started later ignores media asked more than 5 s before it started
 * (bot/session.ts): an entry older than this has done its work. Only such entries are trimmed to
 * make room, so a command the bot may not have read yet is never dropped: the new one is refused.
 */
export const COMMAND_READ_GRACE_MS = 10_000;
/** COMMAND_STREAM_MAX_BYTES's default: room for about five 1 MiB images or clips within the grace. */
export const DEFAULT_COMMAND_STREAM_MAX_BYTES = 8 * 1024 * 1024;

/** Sends commands to running bots. An interface so unit tests can pass a fake. */
export interface BotCommands {
  send(meetingId: number, command: BotCommand): Promise<void>;
}

/** A content command refused because the meeting's command stream is at its byte budget (429). */
export class CommandStreamFullError extends TooManyRequestsError {
  constructor(maxBytes: number) {
    const seconds = Math.ceil(COMMAND_READ_GRACE_MS / 1000);
    super(
      `Too much waiting for this bot: its commands may hold at most ${maxBytes} bytes, and the ones of the last ${seconds} s fill them; retry in ${seconds} s`,
      { 'Retry-After': String(seconds) },
    );
  }
}

/**
 * Commands that carry content a user can send again and again (images, clips, text) count against
 * the budget; the ones that stop or steer the bot (leave, stop speaking, stop the image, settings) are
 * small and are never refused: a stop must always get through.
 */
export function countsAgainstBudget(command: BotCommand): boolean {
  return command.type === 'speak' || command.type === 'screen.show' || command.type === 'chat.send';
}

/**
 * Appends one command, atomically against every API replica and worker:
 * - with a budget (ARGV[2] > 0), the stream's memory is measured with the new entry in it (MEMORY
 *   USAGE with SAMPLES 0 counts every node, allocator rounding included). Over the budget, the
 *   entries older than the grace are trimmed; still over it, the new entry is deleted again and 0
 *   returned. A large entry sits alone in its stream node, so trimming or deleting it frees it;
 * - the meeting is recorded in the index of command streams (KEYS[2]), which the worker's sweep reads
 *   to delete the streams of ended meetings.
 */
const SEND = `
local budget = tonumber(ARGV[2])
local id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], '*', 'data', ARGV[1])
if budget > 0 and redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0') > budget then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('XTRIM', KEYS[1], 'MINID', now - tonumber(ARGV[3]))
  if redis.call('MEMORY', 'USAGE', KEYS[1], 'SAMPLES', '0') > budget then
    redis.call('XDEL', KEYS[1], id)
    -- A stream this command created (no TTL yet) is not left behind empty.
    if redis.call('XLEN', KEYS[1]) == 0 then redis.call('DEL', KEYS[1]) end
    return 0
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[7])
return 1
`;

export interface CommandChannelOptions {
  /** COMMAND_STREAM_MAX_BYTES: what one meeting's command stream may hold in Redis. */
  maxBytes?: number;
}

/**
 * Commands travel on the meeting's durable command stream, which the bot reads from its first entry:
 * a command sent before the bot started, or while its worker restarts, still reaches it. The stream
 * holds at most `maxBytes` of Redis memory plus small control commands (see countsAgainstBudget),
 * and is deleted once its meeting ended and its bot is gone (worker/sweeps/command-stream-sweep.ts).
 */
export function redisBotCommands(
  redis: Redis,
  prefix: string,
  options: CommandChannelOptions = {},
): BotCommands {
  const maxBytes = options.maxBytes ?? DEFAULT_COMMAND_STREAM_MAX_BYTES;
  return {
    async send(meetingId, command) {
      const [, data] = streamFields(command);
      const added = await withTimeout(
        redis.eval(
          SEND,
          2,
          botCommandsStream(prefix, meetingId),
          botCommandStreamsKey(prefix),
          data,
          String(countsAgainstBudget(command) ? maxBytes : 0),
          String(COMMAND_READ_GRACE_MS),
          String(COMMAND_STREAM_TTL_SECONDS),
          String(COMMAND_STREAM_MAX_ENTRIES),
          String(Date.now()),
          String(meetingId),
        ) as Promise<number>,
        SEND_TIMEOUT_MS,
        'sending the bot command',
      );
      if (added !== 1) throw new CommandStreamFullError(maxBytes);
    },
  };
}

/** The meetings that have (or had) a command stream, oldest first, at most `limit`. */
export async function meetingsWithCommandStreams(
  redis: Redis,
  prefix: string,
  limit: number,
): Promise<number[]> {
  const members = await redis.zrange(botCommandStreamsKey(prefix), 0, limit - 1);
  return members.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
}

/** Deletes these meetings' command streams (and `alsoDelete`, their other keys) and forgets them. */
export async function deleteCommandStreams(
  redis: Redis,
  prefix: string,
  meetingIds: readonly number[],
  alsoDelete: (meetingId: number) => string[] = () => [],
): Promise<void> {
  if (meetingIds.length === 0) return;
  await redis
    .multi()
    .del(...meetingIds.flatMap((id) => [botCommandsStream(prefix, id), ...alsoDelete(id)]))
    .zrem(botCommandStreamsKey(prefix), ...meetingIds.map(String))
    .exec();
}
