/**
 * The first phase of a fleet run: a Redis and a Postgres cluster of the bench's own (stores.ts), the
 * bench's control connection to Redis, a fresh migrated database with pg_stat_statements, and the
 * pids their CPU and memory are read by.
 */
import { loadavg } from 'node:os';
import { Redis } from 'ioredis';
import { createTestDatabase, type TestDatabase } from '../../test/support/database.js';
import type { OwnPostgres } from '../../test/support/postgres-server.js';
import type { Cleanups } from './cleanups.js';
import { parseInfo } from './figures.js';
import type { StoreSettings } from './options.js';
import { parentOf } from './process-stats.js';
import type { RunLog } from './run-log.js';
import { type FleetRedis, startFleetPostgres, startFleetRedis } from './stores.js';

export type Db = TestDatabase['db'];

export interface Stores {
  settings: StoreSettings;
  redis: FleetRedis;
  postgres: OwnPostgres;
  /** The bench's own connection to Redis: INFO, ACL USERS, CLIENT LIST, the queues' depths. */
  control: Redis;
  database: TestDatabase;
  db: Db;
  /** Postgres' max_connections, as SHOW gives it. */
  pgMax: string;
  /** Redis' INFO everything, as a record. */
  redisInfo(): Promise<Record<string, string>>;
  redisPid: number;
  postmasterPid: number;
}

export async function startStores(settings: StoreSettings, cleanups: Cleanups, log: RunLog): Promise<Stores> {
  const redis = await startFleetRedis({
    maxclients: settings.redisMaxclients,
    appendonly: settings.redisAof,
  });
  cleanups.add('redis', () => redis.destroy());
  const control = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  // Redis may go first on Ctrl-C (the terminal signals every process of the group): no noise then.
  control.on('error', () => undefined);
  cleanups.add('redis client', () => control.disconnect());
  const postgres = await startFleetPostgres(settings.pgMaxConnections);
  cleanups.add('postgres', () => postgres.destroy());
  const database = await createTestDatabase(postgres.url);
  cleanups.add('database', () => database.drop());
  const db = database.db;
  await db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const pgMax = (await db.raw('SHOW max_connections')).rows[0].max_connections;
  const redisInfo = async () => parseInfo(String(await control.info('everything')));
  const redisPid = Number((await redisInfo()).process_id);
  const postmasterPid = parentOf((await db.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid);
  log(
    `Redis :${redis.port} (maxclients ${settings.redisMaxclientsAsGiven}, aof ${settings.redisAof ? 'on' : 'off'}), ` +
      `Postgres :${postgres.port} (max_connections ${pgMax}), load average ${loadavg()[0]!.toFixed(1)}`,
  );
  return { settings, redis, postgres, control, database, db, pgMax, redisInfo, redisPid, postmasterPid };
}
