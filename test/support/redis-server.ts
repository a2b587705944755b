import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
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
  /** Stops it for good and removes its files. */
  destroy(): Promise<void>;
  output(): string;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const start = async () => {
    const process_ = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
        '--dir',
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const append = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-50_000);
    };
    process_.stdout?.on('data', append);
    process_.stderr?.on('data', append);
    process_.on('error', (error) => append(Buffer.from(`spawn failed: ${error.message}\n`)));
    exited = new Promise((resolve) => process_.on('exit', () => resolve()));
    child = process_;
    // Ready when it answers PING (not LOADING: it has read its AOF back).
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (process_.exitCode !== null || process_.signalCode !== null)
        throw new Error(`redis-server exited at start-up (is it installed?):\n${output}`);
      const probe = new Redis(port, '127.0.0.1', {
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        retryStrategy: () => null,
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
      if (ready) return;
      if (Date.now() > deadline) throw new Error(`redis-server on ${port} never answered:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    child = undefined;
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
    output: () => output,
  };
}
