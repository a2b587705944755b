import { Redis } from 'ioredis';
import knexPkg from 'knex';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from './env.js';

/** Fails the run at once, saying how to fix it, when Postgres or Redis is not there. */
export default async function checkServices(): Promise<void> {
  const db = knexPkg({
    client: 'pg',
    connection: TEST_POSTGRES_URL,
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 5000,
  });
  try {
    await db.raw('SELECT 1');
  } catch (error) {
    throw new Error(
      `Postgres is not reachable at ${TEST_POSTGRES_URL} (${(error as Error).message}). ` +
        'Start it (e.g. `pg_ctlcluster 15 main start`) or set TEST_DATABASE_URL; `npm test` starts a local one when absent.',
    );
  } finally {
    await db.destroy();
  }
  const redis = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new Error(
      `Redis is not reachable at ${TEST_REDIS_URL} (${(error as Error).message}). ` +
        'Start it (e.g. `redis-server --daemonize yes`) or set TEST_REDIS_URL; `npm test` starts a local one when absent.',
    );
  } finally {
    redis.disconnect();
  }
}
