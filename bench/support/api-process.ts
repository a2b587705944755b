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
  /** Takes the API's stdout and stderr instead of this process's own terminal. */
  onOutput?: (chunk: Buffer) => void;
  /** Node's own flags before the entry point (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

/** The API as its own process (as deployed), on this database, with `env` over the defaults. */
export async function startApi(
  databaseUrl: string,
  env: Record<string, string>,
  { queuePrefix, pool, onOutput, nodeArgs = [] }: ApiProcessOptions,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'api/main.ts'], {
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
    stdio: ['ignore', onOutput ? 'pipe' : 'inherit', onOutput ? 'pipe' : 'inherit'],
  });
  if (onOutput) {
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
  }
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/readyz`, child);
  return {
    url: base,
    pid: child.pid ?? 0,
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
