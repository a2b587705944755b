import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botSeccompProfile } from '../../../worker/runtime/bot-seccomp-profile.js';
import { removeLeftBehind, runInBotImage } from '../../support/bot-container.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../../support/env.js';
import { ensureBotImage, freePort } from '../../support/stack.js';

/**
 * Issue 48: the README's `npm run up` path gives the service a Redis and a Postgres that need a
 * credential (scripts/lib/service-stores.sh), where this machine's own answer anyone on loopback.
 * The same functions up.sh calls set them up here on ports of their own, into a settings file of
 * their own, and a container of the bot image, run as the worker runs bots (host network, its
 * seccomp profile, no capabilities), does what a bot's code could do: connect to that Redis without
 * the bot's credential, and log in to that Postgres as `postgres` and as the service's own role,
 * without a password. Both are refused.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const LABEL = 'default-stack';
const docker = new Docker();
const run = promisify(execFile);
const workDir = mkdtempSync(join(tmpdir(), 'meetbot-default-stack-'));
const cluster = `meetbot_test_${process.pid}`;
let redisPort = 0;
let postgresPort = 0;
let settings: Record<string, string> = {};

/** Runs scripts/lib/service-stores.sh's functions as up.sh does, with this test's ports and files. */
async function provision(): Promise<void> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  await run(
    'bash',
    [
      '-c',
      'set -euo pipefail; . scripts/lib/common.sh; load_env; . scripts/lib/service-stores.sh; ensure_service_postgres; ensure_service_redis',
    ],
    {
      cwd: ROOT,
      env: {
        ...env,
        MEETBOT_ENV_FILE: join(workDir, 'env'),
        MEETBOT_DATA_DIR: join(workDir, 'data'),
        MEETBOT_REDIS_PORT: String(redisPort),
        MEETBOT_POSTGRES_PORT: String(postgresPort),
        MEETBOT_POSTGRES_CLUSTER: cluster,
      },
      timeout: 180_000,
    },
  );
  settings = Object.fromEntries(
    readFileSync(join(workDir, 'env'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

/**
 * What a bot's code could try: raw TCP to each port on loopback. Redis: PING without AUTH, its first
 * answer line. Postgres: a protocol 3.0 startup for each user, and what the server answers first (an
 * `R` message with 0 is a login without a password; 10, 5 or 3 ask for one; `E` is an error).
 */
const PROBE = `
const net = require('node:net');
const ask = (port, payload, read) => new Promise((resolve) => {
  const socket = net.connect(port, '127.0.0.1');
  let data = Buffer.alloc(0);
  const done = (answer) => { socket.destroy(); resolve(answer); };
  socket.setTimeout(5000, () => done('timeout'));
  socket.on('error', (error) => done('error ' + error.code));
  socket.on('connect', () => socket.write(payload));
  socket.on('data', (chunk) => { data = Buffer.concat([data, chunk]); const answer = read(data); if (answer !== undefined) done(answer); });
});
const startup = (user) => {
  const body = Buffer.from('user\\0' + user + '\\0database\\0postgres\\0\\0');
  const head = Buffer.alloc(8);
  head.writeInt32BE(8 + body.length, 0);
  head.writeInt32BE(196608, 4);
  return Buffer.concat([head, body]);
};
const firstPostgresAnswer = (data) => {
  if (data.length < 9) return undefined;
  const type = String.fromCharCode(data[0]);
  return type === 'R' ? 'R' + data.readInt32BE(5) : type;
};
(async () => {
  const [redisPort, postgresPort] = process.argv.slice(1).map(Number);
  const redis = await ask(redisPort, 'PING\\r\\n', (data) => data.includes('\\r\\n') ? data.toString().split('\\r\\n')[0] : undefined);
  const postgres = await ask(postgresPort, startup('postgres'), firstPostgresAnswer);
  const meetbot = await ask(postgresPort, startup('meetbot'), firstPostgresAnswer);
  console.log(JSON.stringify({ redis, postgres, meetbot }));
})();
`;

beforeAll(async () => {
  await ensureBotImage();
  await removeLeftBehind(docker, LABEL);
  [redisPort, postgresPort] = [await freePort(), await freePort()];
  await provision();
}, 600_000);

afterAll(async () => {
  const redisUrl = settings.REDIS_URL && new URL(settings.REDIS_URL);
  if (redisUrl) {
    await run('redis-cli', [
      '-p',
      String(redisPort),
      '--no-auth-warning',
      '-a',
      decodeURIComponent(redisUrl.password),
      'shutdown',
      'nosave',
    ]).catch(() => {});
  }
  const version = readdirSync('/etc/postgresql').find((name) =>
    existsSync(join('/etc/postgresql', name, cluster)),
  );
  if (version) await run('pg_dropcluster', ['--stop', version, cluster]).catch(() => {});
  rmSync(workDir, { recursive: true, force: true });
  await removeLeftBehind(docker, LABEL);
});

describe("the README's default stack, seen from inside a bot", () => {
  it('gives the service a Redis and a Postgres with passwords, in settings of its own', () => {
    expect(new URL(settings.REDIS_URL!)).toMatchObject({ hostname: '127.0.0.1', port: String(redisPort) });
    expect(new URL(settings.REDIS_URL!).password).toMatch(/^[0-9a-f]{48}$/);
    expect(new URL(settings.DATABASE_URL!)).toMatchObject({
      hostname: '127.0.0.1',
      port: String(postgresPort),
      username: 'meetbot',
      pathname: '/meetbot',
    });
    expect(new URL(settings.DATABASE_URL!).password).toMatch(/^[0-9a-f]{48}$/);
  });

  it("refuses a bot's connection to Redis without a credential and its logins to Postgres without a password", async () => {
    const result = await runInBotImage(docker, {
      command: ['node', '-e', PROBE, String(redisPort), String(postgresPort)],
      seccompProfile: JSON.stringify(botSeccompProfile()),
      label: LABEL,
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const seen = JSON.parse(result.stdout.trim()) as Record<string, string>;
    expect(seen.redis).toMatch(/^-NOAUTH/);
    // 10: SASL (SCRAM-SHA-256), the only way in is the role's password.
    expect(seen).toMatchObject({ postgres: 'R10', meetbot: 'R10' });
  });

  it('lets in what has the credentials: the service itself', async () => {
    const { stdout } = await run('psql', [settings.DATABASE_URL!, '-tAc', 'SELECT current_user']);
    expect(stdout.trim()).toBe('meetbot');
    const { stdout: pong } = await run('redis-cli', ['-u', settings.REDIS_URL!, '--no-auth-warning', 'ping']);
    expect(pong.trim()).toBe('PONG');
  });

  it('has a worker refuse to start on a Redis that answers without a credential, unless told to', async () => {
    const startWorker = (extra: Record<string, string>) =>
      new Promise<{ code: number | null; output: string }>((resolveExit) => {
        const child = spawn(process.execPath, [join(ROOT, 'dist/worker/main.js')], {
          // A directory without a .env: only these settings configure it.
          cwd: workDir,
          env: {
            PATH: process.env.PATH,
            DATABASE_URL: TEST_POSTGRES_URL,
            REDIS_URL: TEST_REDIS_URL,
            QUEUE_PREFIX: `exposure-${process.pid}`,
            WORKER_ID: 'exposure-check',
            WORKER_METRICS_PORT: '0',
            ...extra,
          },
        });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        const timer = setTimeout(() => child.kill('SIGTERM'), 60_000);
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolveExit({ code, output });
        });
        if (extra.REDIS_OPEN_DEFAULT_USER === 'allow') {
          // Started: it says so, then it is stopped like any worker.
          const started = setInterval(() => {
            if (output.includes('REDIS_OPEN_DEFAULT_USER=allow: starting anyway')) {
              clearInterval(started);
              child.kill('SIGTERM');
            }
          }, 100);
          child.on('exit', () => clearInterval(started));
        }
      });
    // This machine's test Redis lets any client in.
    const refused = await startWorker({});
    expect(refused.code, refused.output).toBe(1);
    expect(refused.output).toContain('Redis answers a client that gives no credential');
    expect(refused.output).toContain('or set REDIS_OPEN_DEFAULT_USER=allow to start bots anyway');
    const allowed = await startWorker({ REDIS_OPEN_DEFAULT_USER: 'allow' });
    expect(allowed.output).toContain('REDIS_OPEN_DEFAULT_USER=allow: starting anyway');
  });
});
