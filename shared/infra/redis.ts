import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * Producer-side connection (API): commands fail fast while Redis is down instead of queueing in
 * memory, so a request gets a clear 503 rather than hanging.
 */
export function createProducerRedis(url: string, log: Logger, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 2, ...options });
  redis.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
  return redis;
}

/** Worker-side connection: BullMQ workers need `maxRetriesPerRequest: null` to block on Redis. */
export function createWorkerRedis(url: string, log: Logger, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, ...options });
  redis.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
  return redis;
}

export function waitForRedis(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}
