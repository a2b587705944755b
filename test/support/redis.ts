import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from './env.js';

/** A key prefix no other test file uses, so queues and streams never collide. */
export function uniquePrefix(label = 'test'): string {
  return `mbt-${label}-${randomBytes(4).toString('hex')}`;
}

/**
 * Deletes every key under the prefix, and the Redis users of the bots launched under it (named
 * `<prefix>:bot:<session>`, or `<prefix>-db<n>:bot:<session>` outside database 0).
 */
export async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  await deleteBotUsers(redis, prefix);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

export function createTestRedis(url = TEST_REDIS_URL): Redis {
  return new Redis(url, { maxRetriesPerRequest: null });
}

/** Deletes the Redis ACL users of the bots of a deployment with this prefix (any database). */
export async function deleteBotUsers(redis: Redis, prefix: string): Promise<void> {
  const users = (await redis.call('ACL', 'USERS')) as string[];
  const ours = users.filter((user) => user.startsWith(`${prefix}:bot:`) || user.startsWith(`${prefix}-db`));
  if (ours.length > 0) await redis.call('ACL', 'DELUSER', ...ours);
}
