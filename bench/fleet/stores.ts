/**
 * The fleet bench's own Redis and Postgres, on ports of their own, so that its keys, ACL users,
 * connections and load touch nothing else on the machine and everything goes with them at the end.
 */
import { randomBytes } from 'node:crypto';
import { type OwnPostgres, startOwnPostgres } from '../../test/support/postgres-server.js';
import { startOwnRedis } from '../../test/support/redis-server.js';

export interface FleetRedis {
  /** The deployment's URL: the default user, with its password (as `npm run up` sets one up). */
  url: string;
  port: number;
  destroy(): Promise<void>;
  output(): string;
}

export interface FleetRedisOptions {
  /** Redis's maxclients (its default is 10,000, lowered to the open-file limit less 32). */
  maxclients: number;
  /** Append-only persistence as `npm run up` runs it (everysec), or none. */
  appendonly: boolean;
}

/** A redis-server of the bench's own, with a password on its default user (the worker refuses one without). */
export async function startFleetRedis(options: FleetRedisOptions): Promise<FleetRedis> {
  const redis = await startOwnRedis({
    password: randomBytes(18).toString('base64url'),
    appendonly: options.appendonly,
    maxclients: options.maxclients,
  });
  return {
    url: redis.url,
    port: redis.port,
    // At the end of a run nothing is kept: no wait for its AOF.
    destroy: () => redis.destroy('SIGKILL'),
    output: redis.output,
  };
}

/**
 * A Postgres cluster of the bench's own (initdb in a temporary directory), `max_connections` as asked,
 * with pg_stat_statements loaded so the run can say which statements kept it busy.
 */
export function startFleetPostgres(maxConnections: number): Promise<OwnPostgres> {
  return startOwnPostgres({
    max_connections: String(maxConnections),
    shared_preload_libraries: 'pg_stat_statements',
  });
}
