import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { TooManyRequestsError } from '../../shared/infra/errors.js';
import type { Logger } from '../../shared/infra/logger.js';

/** One open live connection's place in its owner's count. */
export interface LiveSlot {
  /** Keeps the slot from going stale (call it on every heartbeat). */
  refresh(): Promise<void>;
  release(): Promise<void>;
}

export interface LiveSlots {
  /**
   * Takes a slot for one more of the owner's open connections; a TooManyRequestsError (with
   * Retry-After) when they already have the most allowed.
   */
  acquire(ownerId: number): Promise<LiveSlot>;
}

export interface LiveSlotOptions {
  /** What is counted, in the Redis key: `live-streams` (per user), `live-sockets` (per API key). */
  name: string;
  limit: number;
  /** A slot not refreshed for this long stops counting (its API replica died). */
  staleMs: number;
  /** The refusal's text for this limit. */
  refusal: (limit: number) => string;
  /** The refusal's Retry-After (default: `staleMs`, for slots held as long as a connection stays open). */
  retryAfterSeconds?: number | undefined;
  log: Logger;
}

/**
 * A limit on open live connections (SSE streams per user, WebSockets per key) across every API
 * replica: each open connection is a member of its owner's sorted set in Redis, scored by its last
 * heartbeat, so the connections of a replica that died stop counting once they go stale. Without
 * Redis the limit is not enforced (logged), since the connections themselves keep working from
 * Postgres.
 */
export function redisLiveSlots(redis: Redis, prefix: string, options: LiveSlotOptions): LiveSlots {
  return {
    async acquire(ownerId) {
      const key = `${prefix}:${options.name}:${ownerId}`;
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
          { err: error, ownerId, limit: options.name },
          'could not count open live connections; not enforcing the limit',
        );
        return { refresh: async () => undefined, release: async () => undefined };
      }
      const release = async () => {
        await redis.zrem(key, id).catch(() => undefined);
      };
      if (open > options.limit) {
        await release();
        // Closing a connection frees its place at once; failing that, one of a replica that died
        // stops counting once stale, so that is the longest a retry should need to wait.
        throw new TooManyRequestsError(options.refusal(options.limit), {
          'Retry-After': String(options.retryAfterSeconds ?? Math.ceil(options.staleMs / 1000)),
        });
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

/** LIVE_STREAMS_PER_USER: the SSE streams of one user. */
export function liveStreamSlots(
  redis: Redis,
  prefix: string,
  options: { perUser: number; staleMs: number; log: Logger },
): LiveSlots {
  return redisLiveSlots(redis, prefix, {
    name: 'live-streams',
    limit: options.perUser,
    staleMs: options.staleMs,
    refusal: (limit) => `Too many open live streams for this user (at most ${limit}); close one first`,
    log: options.log,
  });
}

/** WS_SOCKETS_PER_KEY: the WebSockets of one API key. */
export function liveSocketSlots(
  redis: Redis,
  prefix: string,
  options: { perKey: number; staleMs: number; log: Logger },
): LiveSlots {
  return redisLiveSlots(redis, prefix, {
    name: 'live-sockets',
    limit: options.perKey,
    staleMs: options.staleMs,
    refusal: (limit) => `Too many open WebSockets for this API key (at most ${limit}); close one first`,
    log: options.log,
  });
}

/** AUDIO_SOCKETS_PER_USER: the audio sockets of one user, across replicas. */
export function audioSocketSlots(
  redis: Redis,
  prefix: string,
  options: { perUser: number; staleMs: number; log: Logger },
): LiveSlots {
  return redisLiveSlots(redis, prefix, {
    name: 'audio-sockets',
    limit: options.perUser,
    staleMs: options.staleMs,
    refusal: (limit) => `Too many open audio sockets for this user (at most ${limit}); close one first`,
    log: options.log,
  });
}
