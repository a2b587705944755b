import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { TooManyRequestsError } from '../../../shared/infra/errors.js';
import type { Logger } from '../../../shared/infra/logger.js';

/** One open live stream's place in its user's count. */
export interface StreamSlot {
  /** Keeps the slot from going stale (call it on every heartbeat). */
  refresh(): Promise<void>;
  release(): Promise<void>;
}

export interface StreamSlots {
  /** Takes a slot for one more of the user's open streams; 429 when they already have the most allowed. */
  acquire(userId: number): Promise<StreamSlot>;
}

/**
 * LIVE_STREAMS_PER_USER across every API replica: each open stream is a member of its user's sorted
 * set in Redis, scored by its last heartbeat, so the streams of a replica that died stop counting
 * once they go stale. Without Redis the limit is not enforced (logged), since the streams themselves
 * keep working from Postgres.
 */
export function redisStreamSlots(
  redis: Redis,
  prefix: string,
  options: { perUser: number; staleMs: number; log: Logger },
): StreamSlots {
  return {
    async acquire(userId) {
      const key = `${prefix}:live-streams:${userId}`;
      const id = randomUUID();
      const now = Date.now();
      let open: number;
      try {
        const results = await redis
          .multi()
          .zremrangebyscore(key, '-inf', now - options.staleMs)
          .zadd(key, now, id)
          .zcard(key)
          .pexpire(key, options.staleMs)
          .exec();
        open = Number(results?.[2]?.[1] ?? 0);
      } catch (error) {
        options.log.warn(
          { err: error, userId },
          'could not count open live streams; not enforcing the limit',
        );
        return { refresh: async () => undefined, release: async () => undefined };
      }
      const release = async () => {
        await redis.zrem(key, id).catch(() => undefined);
      };
      if (open > options.perUser) {
        await release();
        // Closing a stream frees its place at once; failing that, a stream of a replica that died
        // stops counting once stale, so that is the longest a retry should need to wait.
        throw new TooManyRequestsError(
          `Too many open live streams for this user (at most ${options.perUser}); close one first`,
          { 'Retry-After': String(Math.ceil(options.staleMs / 1000)) },
        );
      }
      return {
        async refresh() {
          await redis
            .multi()
            .zadd(key, 'XX', Date.now(), id)
            .pexpire(key, options.staleMs)
            .exec()
            .catch(() => undefined);
        },
        release,
      };
    },
  };
}
