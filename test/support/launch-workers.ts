import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { Counter, Histogram, Registry } from 'prom-client';
import { redisBotCommands } from '../../shared/bots/command-channel.js';
import { bullBotJobs } from '../../shared/bots/jobs.js';
import { type Config, parseConfig } from '../../shared/infra/config.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { BotQueues } from '../../shared/infra/queues.js';
import { BotFleet } from '../../worker/fleet/bot-fleet.js';
import { closeBotSession } from '../../worker/fleet/bot-sessions.js';
import { createControlWorker } from '../../worker/queues/control-worker.js';
import { createLaunchWorker } from '../../worker/queues/launch-worker.js';
import { LaunchPlacement } from '../../worker/queues/placement.js';
import { createBotCredentials } from '../../worker/runtime/bot-credentials.js';
import type { BotContainerSpec, BotRuntime } from '../../worker/runtime/bot-runtime.js';
import type { WorkerDeps } from '../../worker/worker-deps.js';
import type { TestApi } from './api.js';
import { createTestRedis } from './redis.js';

/** A container start a recording runtime was asked for: which meeting and launch, by which worker, when. */
export interface RecordedStart {
  meetingId: number;
  sessionId: string;
  workerId: string;
  at: number;
}

/** A container runtime that starts nothing: it records each start it is asked for. */
export function recordingRuntime(workerId: string, onStart: (start: RecordedStart) => void): BotRuntime {
  return {
    sharedAmongWorkers: false,
    async start(spec: BotContainerSpec) {
      const meetingId = Number(spec.labels['meetbot.meeting-id']);
      const sessionId = spec.labels['meetbot.session-id'] ?? '';
      onStart({ meetingId, sessionId, workerId, at: Date.now() });
      return `container-${meetingId}-${sessionId}`;
    },
    inspect: async () => undefined,
    list: async () => [],
    stop: async () => undefined,
    remove: async () => undefined,
    logsTail: async () => '',
    usage: async () => undefined,
    onExit: async () => () => undefined,
  };
}

/**
 * A worker's shared handles as worker/create-worker.ts builds them, against a test's Postgres, Redis
 * and BullMQ queues: the runtime is the test's (no container starts), the metrics are counters of a
 * registry of their own, and announcements go nowhere unless `announce` is given.
 */
export function testWorkerDeps(options: {
  config: Config;
  db: Knex;
  /** The worker's non-blocking connection; its credentials and command streams use it. */
  redis: Redis;
  queues: BotQueues;
  runtime: BotRuntime;
  log: Logger;
  /** 4 slots unless given. */
  fleet?: BotFleet;
  announce?: WorkerDeps['announce'];
}): WorkerDeps {
  const { config, redis } = options;
  const registers = [new Registry()];
  return {
    config,
    db: options.db,
    redis,
    runtime: options.runtime,
    credentials: createBotCredentials(redis, config),
    fleet: options.fleet ?? new BotFleet(4),
    log: options.log,
    metrics: {
      relaunches: new Counter({ name: 'r', help: 'h', labelNames: ['outcome'], registers }),
      launchDuration: new Histogram({ name: 'l', help: 'h', registers }),
      scheduledLaunchDelay: new Histogram({ name: 's', help: 'h', registers }),
    },
    jobs: bullBotJobs(options.queues),
    commands: redisBotCommands(redis, config.QUEUE_PREFIX, { maxBytes: config.COMMAND_STREAM_MAX_BYTES }),
    announce: options.announce ?? (async () => undefined),
  };
}

/**
 * The launch queue's worker as worker/create-worker.ts makes it (placement by free capacity among
 * the workers' heartbeats), running on `connection`.
 */
export function runLaunchWorker(deps: WorkerDeps, connection: Redis): Worker {
  const placement = new LaunchPlacement({
    db: deps.db,
    fleet: deps.fleet,
    workerId: deps.config.WORKER_ID,
    heartbeatSeconds: deps.config.WORKER_HEARTBEAT_SECONDS,
  });
  const worker = createLaunchWorker(deps, connection, placement);
  void worker.run();
  return worker;
}

/** The control queue's worker (stops) as worker/create-worker.ts makes it, running on `connection`. */
export function runControlWorker(deps: WorkerDeps, connection: Redis): Worker {
  const worker = createControlWorker(deps, connection);
  void worker.run();
  return worker;
}

export interface LaunchWorker {
  deps: WorkerDeps;
  worker: Worker;
  connections: Redis[];
}

/**
 * Launch workers as worker/create-worker.ts builds them (their own connections, slots and id) against a test
 * API's Postgres, Redis and BullMQ queues, with a recording runtime: no bot container is started.
 * A worker "restart" is `stop` then `start`.
 */
export class LaunchWorkers {
  /** Every container start any of the workers made, in order. */
  readonly starts: RecordedStart[] = [];
  private readonly running: LaunchWorker[] = [];

  constructor(
    private readonly api: TestApi,
    private readonly log: Logger,
    /** Settings every worker gets, beside the test API's database, Redis and prefix. */
    private readonly env: Record<string, string> = {},
  ) {}

  private config(workerId: string, env: Record<string, string> = {}) {
    return parseConfig({
      ...process.env,
      DATABASE_URL: this.api.database.url,
      REDIS_URL: this.api.config.REDIS_URL,
      QUEUE_PREFIX: this.api.prefix,
      LOG_LEVEL: 'silent',
      ...this.env,
      ...env,
      WORKER_ID: workerId,
    });
  }

  /** A launch worker with `slots` bot slots (4 unless given). */
  start(workerId: string, env: Record<string, string> = {}, slots = 4): LaunchWorker {
    const config = this.config(workerId, env);
    const redis = createTestRedis(config.REDIS_URL);
    const deps = testWorkerDeps({
      config,
      db: this.api.database.db,
      redis,
      queues: this.api.queues,
      runtime: recordingRuntime(workerId, (start) => this.starts.push(start)),
      log: this.log,
      fleet: new BotFleet(slots),
    });
    const connection = redis.duplicate();
    const worker = runLaunchWorker(deps, connection);
    const started = { deps, worker, connections: [redis, connection] };
    this.running.push(started);
    return started;
  }

  async stop(target: LaunchWorker): Promise<void> {
    await target.worker.close();
    for (const connection of target.connections) connection.disconnect();
    this.running.splice(this.running.indexOf(target), 1);
  }

  async stopAll(): Promise<void> {
    for (const target of [...this.running]) await this.stop(target);
  }

  startsOf(meetingId: number): RecordedStart[] {
    return this.starts.filter((start) => start.meetingId === meetingId);
  }

  /** Revokes the Redis credentials the launches opened for their bots. */
  async closeSessions(): Promise<void> {
    const config = this.config('cleanup');
    const redis = createTestRedis(config.REDIS_URL);
    const deps = {
      config,
      db: this.api.database.db,
      redis,
      log: this.log,
      credentials: createBotCredentials(redis, config),
    };
    for (const start of this.starts) await closeBotSession(deps, start.sessionId).catch(() => undefined);
    redis.disconnect();
  }
}

/** Polls `read` every 50 ms until it gives a value; throws after `timeoutMs`. */
export async function until<T>(
  read: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
