import type { Redis } from 'ioredis';

/**
 * How many speak requests a bot has waiting or playing, as the API can tell without asking the bot:
 * each accepted request is kept until the time it should have finished (queued after the ones
 * before it, its length estimated from its words or bytes), and a stop clears them. An estimate,
 * so the limit is a guard against flooding a meeting, not an exact count of the bot's queue.
 */
export interface SpeechQueue {
  /** Adds a request unless `limit` are pending; returns how many are pending with it, or null when full. */
  reserve(
    meetingId: number,
    requestId: string,
    estimatedSeconds: number,
    limit: number,
  ): Promise<number | null>;
  clear(meetingId: number): Promise<void>;
}

/** Trims the finished, counts, and adds the new one after the last, atomically. */
const RESERVE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local pending = redis.call('ZCARD', KEYS[1])
if pending >= tonumber(ARGV[4]) then return -1 end
local last = redis.call('ZREVRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local start = now
if last[2] and tonumber(last[2]) > now then start = tonumber(last[2]) end
local finish = start + tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], finish, ARGV[2])
redis.call('PEXPIREAT', KEYS[1], math.floor(finish) + 60000)
return pending + 1
`;

/** The key of a meeting's speech estimate (it expires a minute after the last request should end). */
export function speechQueueKey(prefix: string, meetingId: number): string {
  return `${prefix}:speech-queue:${meetingId}`;
}

export function redisSpeechQueue(redis: Redis, prefix: string): SpeechQueue {
  const key = (meetingId: number) => speechQueueKey(prefix, meetingId);
  return {
    async reserve(meetingId, requestId, estimatedSeconds, limit) {
      const pending = (await redis.eval(
        RESERVE,
        1,
        key(meetingId),
        String(Date.now()),
        requestId,
        String(Math.ceil(estimatedSeconds * 1000)),
        String(limit),
      )) as number;
      return pending < 0 ? null : pending;
    },
    async clear(meetingId) {
      await redis.del(key(meetingId));
    },
  };
}

/** Speaking pace of the offline voices (about 160 words a minute) plus a second of pauses and start-up. */
export function estimatedSpeechSeconds(speech: { text?: string; audioBytes?: number }): number {
  if (speech.text !== undefined) return speech.text.trim().split(/\s+/).length / 2.7 + 1;
  // A clip: as if 64 kbit/s compressed audio (uncompressed WAV is over-estimated, which only errs long).
  return (speech.audioBytes ?? 0) / 8000 + 1;
}
