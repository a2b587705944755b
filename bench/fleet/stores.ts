/**
 * The fleet bench's own Redis and Postgres, on ports of their own, so that its keys, ACL users,
 * connections and load touch nothing else on the machine and everything goes with them at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { childServer } from '../../test/support/child-server.js';
import { type OwnPostgres, startOwnPostgres } from '../../test/support/postgres-server.js';
import { freePort } from '../support/api-process.js';

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
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-fleet-redis-'));
  const port = await freePort();
  const password = randomBytes(18).toString('base64url');
  const server = childServer({
    name: 'redis-server',
    command: 'redis-server',
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      options.appendonly ? 'yes' : 'no',
      '--appendfsync',
      'everysec',
      '--dir',
      dir,
      '--requirepass',
      password,
      '--maxclients',
      String(options.maxclients),
    ],
    keepOutput: 50_000,
    ready: async () => {
      const probe = new Redis(port, '127.0.0.1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
        password,
      });
      probe.on('error', () => {});
      const ready = await probe
        .connect()
        .then(() => probe.ping())
        .then(
          (answer) => answer === 'PONG',
          () => false,
        );
      probe.disconnect();
      return ready;
    },
    notReady: `on ${port} never answered`,
    exitHint: ' (is redis-server installed?)',
  });
  await server.start();
  return {
    url: `redis://:${password}@127.0.0.1:${port}`,
    port,
    async destroy() {
      await server.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
    output: server.output,
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
