import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './stack.js';

const execFileAsync = promisify(execFile);

/** A Redis or Postgres server a fault test owns: it may restart it without touching the machine's. */
export interface OwnServer {
  url: string;
  /** Stops the server (SIGTERM, as a service manager would) and starts it again on the same port and data. */
  restart(options?: { downForMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** redis-server on a free port with AOF persistence (as production runs it), in a temporary directory. */
export async function startOwnRedis(): Promise<OwnServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-redis-'));
  let child: ChildProcess;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'everysec',
      ],
      { stdio: 'ignore' },
    );
    await waitUntil(
      async () => (await execFileAsync('redis-cli', ['-p', String(port), 'ping'])).stdout.trim() === 'PONG',
      `redis on ${port}`,
    );
  };
  await start();
  const stop = async () => {
    child.kill('SIGTERM');
    await exited(child);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    async restart({ downForMs = 0 } = {}) {
      await stop();
      await new Promise((resolve) => setTimeout(resolve, downForMs));
      await start();
    },
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresBin(name: string): string {
  const version = readdirSync('/usr/lib/postgresql').sort().at(-1);
  if (!version) throw new Error('no Postgres server binaries under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${version}/bin/${name}`;
}

/** A Postgres cluster of its own (initdb, trust auth) on a free port, run as the postgres user. */
export async function startOwnPostgres(): Promise<OwnServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-pg-'));
  const asPostgres = (args: string[]) =>
    execFileAsync('runuser', ['-u', 'postgres', '--', ...args], { timeout: 120_000 });
  chownSync(dir, ...(await postgresIds()));
  await asPostgres([
    postgresBin('initdb'),
    '-D',
    join(dir, 'data'),
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
  ]);
  const pgCtl = (action: string, extra: string[] = []) =>
    asPostgres([
      postgresBin('pg_ctl'),
      '-D',
      join(dir, 'data'),
      '-l',
      join(dir, 'log'),
      '-w',
      ...extra,
      action,
    ]);
  const options = ['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`];
  await pgCtl('start', options);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart({ downForMs = 0 } = {}) {
      await pgCtl('stop', ['-m', 'fast']);
      await new Promise((resolve) => setTimeout(resolve, downForMs));
      await pgCtl('start', options);
    },
    async stop() {
      await pgCtl('stop', ['-m', 'immediate']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await execFileAsync('id', ['postgres']);
  const uid = Number(/uid=(\d+)/.exec(stdout)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(stdout)?.[1]);
  return [uid, gid];
}
