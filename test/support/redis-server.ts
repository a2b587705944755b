import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { childServer } from './child-server.js';
import { freePort } from './stack.js';

/**
 * A redis-server of a test's own, on its own port, with an append-only file in a directory of its
 * own, so it can be stopped and started again keeping its data, as a production Redis with AOF does.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** Stops it: SIGTERM (Redis writes and syncs its AOF) or SIGKILL (a crash). */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  start(): Promise<void>;
  /** Stops it for good (SIGTERM unless told) and removes its files. */
  destroy(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  output(): string;
}

export interface OwnRedisOptions {
  /**
   * The default user's password (requirepass), as a deployment that gives bots credentials of their
   * own must set: without it anyone reaching the port is the default user, with every right.
   */
  password?: string;
  /** Append-only persistence (everysec), on unless told. */
  appendonly?: boolean;
  /** Redis's maxclients; its own default (10,000, less where the open-file limit is lower) unless told. */
  maxclients?: number;
}

export async function startOwnRedis(options: OwnRedisOptions = {}): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-redis-'));
  const port = await freePort();
  const { password } = options;
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
      options.appendonly === false ? 'no' : 'yes',
      '--appendfsync',
      'everysec',
      '--dir',
      dir,
      ...(password ? ['--requirepass', password] : []),
      ...(options.maxclients !== undefined ? ['--maxclients', String(options.maxclients)] : []),
    ],
    keepOutput: 50_000,
    // Ready when it answers PING (not LOADING: it has read its AOF back).
    ready: async () => {
      const probe = new Redis(port, '127.0.0.1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
        ...(password && { password }),
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
    exitHint: ' (is it installed?)',
  });
  const { start, stop } = server;

  await start();
  return {
    url: password
      ? `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`
      : `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy(signal) {
      await stop(signal);
      rmSync(dir, { recursive: true, force: true });
    },
    output: server.output,
  };
}
