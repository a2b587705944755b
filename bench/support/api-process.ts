import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TEST_REDIS_URL } from '../../test/support/env.js';

export interface ApiProcessOptions {
  /** The queues' Redis key prefix. */
  queuePrefix: string;
  /** DATABASE_POOL_MAX. */
  pool: number;
}

/** The API as its own process (as deployed), on this database, with `env` over the defaults. */
export async function startApi(
  databaseUrl: string,
  env: Record<string, string>,
  { queuePrefix, pool }: ApiProcessOptions,
): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: queuePrefix,
      API_PORT: String(port),
      LOG_LEVEL: 'fatal',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
      DATABASE_POOL_MAX: String(pool),
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/readyz`, child);
  return {
    url: base,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/** A port nothing listens on now, on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

/** Waits until `target` answers 2xx, every 200 ms at most `attempts` times, while `child` runs. */
export async function waitForHttp(target: string, child: ChildProcess, attempts = 150): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (child.exitCode !== null) throw new Error('the API exited');
    try {
      if ((await fetch(target)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${target} never answered`);
}
