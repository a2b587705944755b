import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { freePort } from '../../support/stack.js';

// The README's quick start, run as a newcomer runs it: its commands exactly as written, in order, in a
// copy of the project as a clean clone has it (no node_modules, dist, .env or .run), then the demo the
// README names next. Only the environment differs from a newcomer's: a queue prefix, ports and the
// names of the Redis and Postgres `up` sets up of its own, so a stack a developer runs on this machine
// (and the tests around it) is left alone. As a newcomer's, its environment names no DATABASE_URL or
// REDIS_URL: the defaults are this machine's Postgres and Redis, which let anyone on loopback in, so
// `up` starts a Redis and a Postgres cluster of the service's own that ask for passwords
// (scripts/lib/service-stores.sh), which the test removes afterwards.
// `npm test`, the quick start's second command, is the command this suite runs in; it is checked to be
// written there, not run again from inside itself.

const execFileAsync = promisify(execFile);
const REPO_ROOT = new URL('../../../', import.meta.url).pathname;
const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const docker = new Docker();

/** The README's "Quick start" section, up to the next heading. */
const QUICK_START = README.split(/^## Quick start$/m)[1]?.split(/^## /m)[0] ?? '';

/** The commands of the quick start's code block, comments dropped. */
function quickStartCommands(): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(QUICK_START)?.[1] ?? '';
  return block
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line.length > 0);
}

/** The commands the quick start's prose names after the code block (`npm run demo`). */
function namedAfterwards(): string[] {
  const prose = QUICK_START.split('```').slice(2).join('```');
  return [...prose.matchAll(/`(npm run [a-z:-]+)`/g)].map((match) => match[1]!);
}

/** Tracked and new, not ignored, files as they are in the working tree: what a clone of this change holds. */
async function copyAsCleanClone(into: string): Promise<void> {
  const { stdout } = await execFileAsync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    {
      cwd: REPO_ROOT,
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  for (const file of stdout.split('\0').filter(Boolean)) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    try {
      cpSync(join(REPO_ROOT, file), join(into, file), { verbatimSymlinks: true });
    } catch (error) {
      // A file deleted in the working tree but not yet in the index: a clone of the change lacks it too.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

let clone: string;
let stores: { cluster: string; redisPort: number; postgresPort: number; dataDir: string };
let env: Record<string, string>;
let apiPort: number;

async function run(command: string, timeoutMs: number): Promise<string> {
  try {
    const { stdout, stderr } = await execFileAsync('bash', ['-c', command], {
      cwd: clone,
      env,
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
    });
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const failed = error as { message: string; stdout?: string; stderr?: string };
    const log = (name: string) => {
      try {
        return readFileSync(join(clone, '.run', `${name}.log`), 'utf8').slice(-4000);
      } catch {
        return '(none)';
      }
    };
    throw new Error(
      `\`${command}\` failed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}\n` +
        `api.log: ${log('api')}\nworker.log: ${log('worker')}\nsimulator.log: ${log('simulator')}`,
    );
  }
}

beforeAll(async () => {
  clone = mkdtempSync(join(tmpdir(), 'meetbot-quick-start-'));
  await copyAsCleanClone(clone);
  apiPort = await freePort();
  stores = {
    cluster: `meetbot_quickstart_${randomBytes(4).toString('hex')}`,
    redisPort: await freePort(),
    postgresPort: await freePort(),
    dataDir: join(clone, '.stores'),
  };
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/root',
    QUEUE_PREFIX: `quickstart${randomBytes(4).toString('hex')}`,
    API_PORT: String(apiPort),
    SIMULATOR_PORT: String(await freePort()),
    WORKER_METRICS_PORT: String(await freePort()),
    WORKER_ID: `quickstart-${randomBytes(4).toString('hex')}`,
    MEETBOT_POSTGRES_CLUSTER: stores.cluster,
    MEETBOT_POSTGRES_PORT: String(stores.postgresPort),
    MEETBOT_REDIS_PORT: String(stores.redisPort),
    MEETBOT_DATA_DIR: stores.dataDir,
  };
}, 120_000);

afterAll(async () => {
  if (clone) {
    await run('npm run down', 60_000).catch(() => {});
    // The demo's bot has left by now; anything of this worker's still there is removed, not orphaned.
    const bots = await docker.listContainers({
      all: true,
      filters: { label: [`${Labels.workerId}=${env.WORKER_ID}`] },
    });
    await Promise.all(
      bots.map((bot) =>
        docker
          .getContainer(bot.Id)
          .remove({ force: true })
          .catch(() => {}),
      ),
    );
    await removeStores().catch(() => {});
    rmSync(clone, { recursive: true, force: true });
  }
}, 120_000);

/** Stops the Redis and drops the Postgres cluster `up` set up, with the password it wrote to .env. */
async function removeStores(): Promise<void> {
  const settings = readFileSync(join(clone, '.env'), 'utf8');
  const redisPassword = /^MEETBOT_REDIS_PASSWORD=(.*)$/m.exec(settings)?.[1];
  if (redisPassword) {
    await execFileAsync('redis-cli', [
      '-p',
      String(stores.redisPort),
      '--no-auth-warning',
      '-a',
      redisPassword,
      'shutdown',
      'nosave',
    ]).catch(() => {});
  }
  const version = readdirSync('/etc/postgresql').find((name) =>
    existsSync(join('/etc/postgresql', name, stores.cluster)),
  );
  if (version) await execFileAsync('pg_dropcluster', ['--stop', version, stores.cluster]);
}

describe("the README's quick start on a clean clone", () => {
  it('is exactly two commands: the stack up, then the whole test suite', () => {
    expect(quickStartCommands()).toEqual(['npm run up', 'npm test']);
    expect(namedAfterwards()).toContain('npm run demo');
  });

  it('brings the stack up, and the demo ends with a transcript', async () => {
    const [up] = quickStartCommands();
    const upOutput = await run(up!, 12 * 60_000);
    expect(upOutput).toContain(`Base URL:  http://127.0.0.1:${apiPort}`);
    expect(upOutput).toContain(`Web app:   http://127.0.0.1:${apiPort}/app/`);
    // The web app was built by `up` and is served with its policy.
    const app = await fetch(`http://127.0.0.1:${apiPort}/app/`);
    expect(app.status).toBe(200);
    expect(app.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(await app.text()).toContain('<div id="app"></div>');
    expect(upOutput).toMatch(/API key: {3}\S{16,}/);
    // The Redis and Postgres it runs on ask for passwords (this machine's own don't).
    const settings = readFileSync(join(clone, '.env'), 'utf8');
    expect(settings).toMatch(
      new RegExp(`^REDIS_URL=redis://default:[0-9a-f]{48}@127\\.0\\.0\\.1:${stores.redisPort}$`, 'm'),
    );
    expect(settings).toMatch(
      new RegExp(
        `^DATABASE_URL=postgres://meetbot:[0-9a-f]{48}@127\\.0\\.0\\.1:${stores.postgresPort}/meetbot$`,
        'm',
      ),
    );

    const demo = await run('npm run demo', 6 * 60_000);
    expect(demo).toMatch(/status: active/);
    expect(demo).toMatch(/status: completed/);
    // The scripted lines come back as the named speakers' words.
    expect(demo).toMatch(/Bob Baker: .*quarterly report/i);
    expect(demo).toMatch(/Carol Chen: .*release/i);
  });
});
