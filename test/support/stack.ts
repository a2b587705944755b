import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { listTransitions, type TransitionRecord } from '../../shared/meetings/transitions-store.js';
import { type CreateMeetingInput, SimulatorClient } from '../../simulator/client.js';
import { createSimulator } from '../../simulator/server.js';
import { Labels } from '../../worker/runtime/bot-runtime.js';
import { startTestApi, type TestApi, type TestUser } from './api.js';
import { TEST_REDIS_URL } from './env.js';
import { TEST_WEBHOOK_ENV } from './webhook-service.js';

const execFileAsync = promisify(execFile);

/** A TCP port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
const REPO_ROOT = new URL('../../', import.meta.url).pathname;
let imageReady: Promise<void> | undefined;
/** Set by the e2e global setup once it has compiled the project and built the bot image for the run. */
export const BOT_IMAGE_READY_ENV = 'MEETBOT_TEST_BOT_IMAGE_READY';

/**
 * Compiles the project and builds the bot image when its inputs changed (fast when nothing did),
 * unless this run's global setup did already. Fails with the build's output, and a hint, when Docker
 * or the build is not available.
 */
export function ensureBotImage(): Promise<void> {
  if (process.env[BOT_IMAGE_READY_ENV] === '1') return Promise.resolve();
  imageReady ??= execFileAsync('bash', ['scripts/build-bot-image.sh', '--compile'], {
    cwd: REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 15 * 60_000,
  }).then(
    () => undefined,
    (error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(
        `could not build the bot image (scripts/build-bot-image.sh --compile; it needs a Docker engine, ` +
          `see scripts/lib/docker.sh): ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`,
      );
    },
  );
  return imageReady;
}

/** A service process of the stack (worker or API) with its output kept for failure messages. */
interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** Runs a compiled entry point (dist/…) in `cwd` with exactly `env` plus PATH and HOME. */
function spawnService(entry: string, cwd: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [join(REPO_ROOT, entry)], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return {
    child,
    output: () => output,
    exited: new Promise((resolve) => child.on('exit', (code) => resolve(code))),
  };
}

async function stopService(service: ServiceProcess, signal: NodeJS.Signals): Promise<void> {
  if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill(signal);
  await service.exited;
}

export interface WorkerProcess {
  id: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

/** An API served by its own process (node dist/api/main.js), e.g. to kill it. */
export interface ApiProcess {
  baseUrl: string;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

export interface StackOptions {
  workerEnv?: Record<string, string>;
  /** Settings of the in-process API and of API processes (workers get workerEnv). */
  apiEnv?: Record<string, string>;
  /** The Redis every process of the stack uses (API, workers, bots) instead of TEST_REDIS_URL. */
  redisUrl?: string;
  /** The Postgres server the stack's database is created on instead of TEST_DATABASE_URL's. */
  postgresUrl?: string;
}

export interface Stack {
  api: TestApi;
  user: TestUser;
  simulator: SimulatorClient;
  simulatorUrl: string;
  docker: Docker;
  startWorker(id: string, env?: Record<string, string>): WorkerProcess;
  stopWorker(worker: WorkerProcess, signal?: NodeJS.Signals): Promise<void>;
  /**
   * An API process on the stack's database, Redis and key prefix, besides the in-process one;
   * `port` 0 picks a free one (pass the same port again to restart it where clients expect it).
   */
  startApiProcess(options?: { port?: number; env?: Record<string, string> }): Promise<ApiProcess>;
  stopApiProcess(api: ApiProcess, signal?: NodeJS.Signals): Promise<void>;
  /** The deployment's bot containers for a meeting (running or exited). */
  containersOf(meetingId: number): Promise<Docker.ContainerInfo[]>;
  transitions(meetingId: number): Promise<TransitionRecord[]>;
  /** Polls GET /meetings/{id} until the status is one of `statuses`; returns every status seen on the way. */
  waitForStatus(meetingId: number, statuses: string[], timeoutMs?: number): Promise<string[]>;
  createMeetingAndBot(
    meeting: CreateMeetingInput,
    bot?: Record<string, unknown>,
  ): Promise<{ meetingId: number; nativeId: string; platform: string }>;
  close(): Promise<void>;
}

const ENGINE_SETTINGS = ['TRANSCRIPTION_ENGINE', 'OPENAI_BASE_URL', 'WHISPERLIVE_URL'];

function engineSettingsOf(env: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => ENGINE_SETTINGS.includes(name)));
}

/** Simulator + API (in process) + worker processes running real bot containers, on a fresh database and key prefix. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  await ensureBotImage();
  const sim = await createSimulator({ host: '127.0.0.1', port: 0 });
  const simulatorOrigin = new URL(sim.url).origin;
  const redisUrl = options.redisUrl ?? TEST_REDIS_URL;
  const api = await startTestApi({
    env: {
      EXTRA_MEETING_ORIGINS: simulatorOrigin,
      ...TEST_WEBHOOK_ENV,
      // One deployment, one engine: the API checks requested languages against the workers' engine.
      ...engineSettingsOf(options.workerEnv),
      ...options.apiEnv,
    },
    redisUrl,
    ...(options.postgresUrl && { postgresUrl: options.postgresUrl }),
  });
  const user = await api.createUser({ maxConcurrentBots: 100 });
  const simulator = new SimulatorClient(sim.url);
  const docker = new Docker();
  const workers = new Set<WorkerProcess>();
  const apiProcesses = new Set<ApiProcess>();
  const workDir = mkdtempSync(join(tmpdir(), 'meetbot-worker-'));

  const startWorker: Stack['startWorker'] = (id, env = {}) => {
    // A directory without a .env, so only what is set here configures the worker.
    const worker: WorkerProcess = {
      id,
      ...spawnService('dist/worker/main.js', workDir, {
        DATABASE_URL: api.database.url,
        REDIS_URL: redisUrl,
        QUEUE_PREFIX: api.prefix,
        WORKER_ID: id,
        EXTRA_MEETING_ORIGINS: simulatorOrigin,
        RECONCILE_INTERVAL_SECONDS: '2',
        BOT_STOP_GRACE_SECONDS: '20',
        BOT_SLOTS: '4',
        // The machine's test Redis (and a test's own without a password) lets any client in; a stack
        // on a Redis with a password is checked as a deployment's is.
        REDIS_OPEN_DEFAULT_USER: new URL(redisUrl).password ? 'refuse' : 'allow',
        LOG_LEVEL: process.env.TEST_WORKER_LOG_LEVEL ?? 'info',
        // The bots' own log level (their container logs), for a run that needs their debug lines.
        ...(process.env.BOT_LOG_LEVEL && { BOT_LOG_LEVEL: process.env.BOT_LOG_LEVEL }),
        // Local recording storage: the in-process API's directory, so it serves what workers store.
        RECORDING_DIR: api.config.RECORDING_DIR,
        // The image this run built (another checkout on the same engine may build its own tag).
        ...(process.env.BOT_IMAGE && { BOT_IMAGE: process.env.BOT_IMAGE }),
        ...TEST_WEBHOOK_ENV,
        ...options.workerEnv,
        ...env,
      }),
    };
    workers.add(worker);
    return worker;
  };

  const stopWorker: Stack['stopWorker'] = async (worker, signal = 'SIGTERM') => {
    await stopService(worker, signal);
    workers.delete(worker);
  };

  const startApiProcess: Stack['startApiProcess'] = async ({ port = 0, env = {} } = {}) => {
    const listenPort = port || (await freePort());
    const service = spawnService('dist/api/main.js', workDir, {
      DATABASE_URL: api.database.url,
      REDIS_URL: redisUrl,
      QUEUE_PREFIX: api.prefix,
      API_HOST: '127.0.0.1',
      API_PORT: String(listenPort),
      EXTRA_MEETING_ORIGINS: simulatorOrigin,
      // Tests make many requests on purpose.
      RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
      LOG_LEVEL: process.env.TEST_WORKER_LOG_LEVEL ?? 'info',
      RECORDING_DIR: api.config.RECORDING_DIR,
      ...TEST_WEBHOOK_ENV,
      ...options.apiEnv,
      ...env,
    });
    const { child, output } = service;
    const apiProcess: ApiProcess = { baseUrl: `http://127.0.0.1:${listenPort}`, ...service };
    apiProcesses.add(apiProcess);
    // Ready once it answers /healthz.
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`the API process exited at start-up:\n${output().slice(-4000)}`);
      const healthy = await fetch(`${apiProcess.baseUrl}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) return apiProcess;
      if (Date.now() > deadline) throw new Error(`the API process never answered:\n${output().slice(-4000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  const stopApiProcess: Stack['stopApiProcess'] = async (apiProcess, signal = 'SIGTERM') => {
    await stopService(apiProcess, signal);
    apiProcesses.delete(apiProcess);
  };

  const containersOf: Stack['containersOf'] = (meetingId) =>
    docker.listContainers({
      all: true,
      filters: { label: [`${Labels.deployment}=${api.prefix}`, `${Labels.meetingId}=${meetingId}`] },
    });

  const waitForStatus: Stack['waitForStatus'] = async (meetingId, statuses, timeoutMs = 120_000) => {
    const seen: string[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await api.request('GET', `/meetings/${meetingId}`, { key: user.key });
      const status = response.body?.status as string;
      if (seen.at(-1) !== status) seen.push(status);
      if (statuses.includes(status)) return seen;
      if (Date.now() > deadline) {
        const logs = [...workers].map((w) => `--- worker ${w.id}\n${w.output().slice(-4000)}`).join('\n');
        throw new Error(
          `meeting ${meetingId} never reached ${statuses.join('/')}; seen ${seen.join(' → ')}\n${logs}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  let meetCounter = 0;
  const createMeetingAndBot: Stack['createMeetingAndBot'] = async (meeting, bot = {}) => {
    const created = await simulator.createMeeting(meeting);
    meetCounter += 1;
    const body: Record<string, unknown> = {
      platform: created.platform,
      native_meeting_id: created.id,
      meeting_url: created.url,
      bot_name: `Notetaker ${meetCounter}`,
      ...(created.passcode && { passcode: created.passcode }),
      ...bot,
    };
    const response = await api.request('POST', '/bots', { key: user.key, json: body });
    if (response.status !== 201) throw new Error(`POST /bots answered ${response.status}: ${response.text}`);
    return { meetingId: response.body.id as number, nativeId: created.id, platform: created.platform };
  };

  return {
    api,
    user,
    simulator,
    simulatorUrl: sim.url,
    docker,
    startWorker,
    stopWorker,
    startApiProcess,
    stopApiProcess,
    containersOf,
    transitions: (meetingId) => listTransitions(api.database.db, meetingId),
    waitForStatus,
    createMeetingAndBot,
    async close() {
      for (const apiProcess of [...apiProcesses]) await stopApiProcess(apiProcess);
      for (const worker of [...workers]) await stopWorker(worker);
      const leftovers = await docker.listContainers({
        all: true,
        filters: { label: [`${Labels.deployment}=${api.prefix}`] },
      });
      await Promise.all(
        leftovers.map((container) =>
          docker
            .getContainer(container.Id)
            .remove({ force: true })
            .catch(() => {}),
        ),
      );
      await sim.close();
      await api.close();
    },
  };
}
