import type { Redis } from 'ioredis';
import type { Config } from '../../../shared/infra/config.js';
import { AppError } from '../../../shared/infra/errors.js';
import type { Logger } from '../../../shared/infra/logger.js';
import { Semaphore } from '../../../shared/infra/semaphore.js';
import { type LiveSlots, redisLiveSlots } from '../../live/slots.js';

/**
 * What every search (GET /search, the MCP search tool) passes through: a broad search holds a pool
 * connection for up to SEARCH_TIMEOUT_MS, so one user may run only SEARCH_CONCURRENCY_PER_USER at
 * once (429 beyond, counted across replicas), and this process runs at most SEARCH_CONCURRENCY
 * searches of all users together (the rest wait their turn), so the other routes always find
 * connections in the pool.
 */
export interface SearchGate {
  run<T>(userId: number, search: () => Promise<T>): Promise<T>;
}

export interface SearchGateOptions {
  /** The user's searches running now, across every API replica (SEARCH_CONCURRENCY_PER_USER). */
  perUser: LiveSlots;
  /** Searches this process runs at once (SEARCH_CONCURRENCY). */
  concurrency: number;
  /** How long a search waits for one of those places before it is refused (SEARCH_TIMEOUT_MS). */
  waitMs: number;
}

/** What a refusal suggests waiting: a typical search takes milliseconds, a broad one seconds. */
const RETRY_AFTER_SECONDS = 1;

export function searchGate(options: SearchGateOptions): SearchGate {
  const places = new Semaphore(options.concurrency);
  return {
    async run(userId, search) {
      const slot = await options.perUser.acquire(userId);
      try {
        const release = await places.acquire(options.waitMs);
        if (!release) {
          throw new AppError(503, 'Too many searches are running on this server; try again shortly', {
            'Retry-After': String(RETRY_AFTER_SECONDS),
          });
        }
        try {
          return await search();
        } finally {
          release();
        }
      } finally {
        await slot.release();
      }
    },
  };
}

/** SEARCH_CONCURRENCY, or half the pool when it is unset. */
export function searchConcurrencyOf(
  config: Pick<Config, 'SEARCH_CONCURRENCY' | 'DATABASE_POOL_MAX'>,
): number {
  return config.SEARCH_CONCURRENCY ?? Math.max(1, Math.floor(config.DATABASE_POOL_MAX / 2));
}

/** SEARCH_CONCURRENCY_PER_USER: one user's running searches, across every API replica (Redis). */
export function searchSlots(
  redis: Redis,
  prefix: string,
  options: { perUser: number; timeoutMs: number; log: Logger },
): LiveSlots {
  return redisLiveSlots(redis, prefix, {
    name: 'searches',
    limit: options.perUser,
    // A search ends within its wait for a place and its statements' timeouts; the place of one whose
    // replica died before releasing it stops counting after that.
    staleMs: 3 * options.timeoutMs + 5000,
    retryAfterSeconds: RETRY_AFTER_SECONDS,
    refusal: (limit) => `Too many searches at once for this user (at most ${limit}); wait for one to finish`,
    log: options.log,
  });
}
