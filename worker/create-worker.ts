import type { Server } from 'node:http';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { redisBotCommands } from '../shared/bots/command-channel.js';
import { bullBotJobs } from '../shared/bots/jobs.js';
import { botServiceSettingsOf } from '../shared/bots/service.js';
import { PeriodicLoop } from '../shared/infra/background-loop.js';
import type { Config } from '../shared/infra/config.js';
import { createKnex, type Knex } from '../shared/infra/knex.js';
import type { Logger } from '../shared/infra/logger.js';
import { createMetricsRegistry } from '../shared/infra/metrics.js';
import { outboundAddressPolicyOf } from '../shared/infra/outbound-address-policy.js';
import { createBotQueues } from '../shared/infra/queues.js';
import { createWorkerRedis } from '../shared/infra/redis.js';
import { Shutdown } from '../shared/infra/shutdown.js';
import { meetingAnnouncer } from '../shared/meetings/changes.js';
import { createRecordingStorage } from '../shared/recordings/create-storage.js';
import { setBotAccountExpiryUsers } from './accounts/bot-account-expiry.js';
import { checkBotAccountKeysAtStart } from './accounts/bot-account-key-check.js';
import {
  CalendarPoller,
  calendarFeedSettingsOf,
  calendarPollerOptionsOf,
} from './calendars/calendar-poller.js';
import { domainEvents } from './events/domain-events.js';
import { BotFleet } from './fleet/bot-fleet.js';
import { BotLagWatch } from './fleet/bot-lag-watch.js';
import { restoreLostCredentials } from './fleet/bot-sessions.js';
import { defaultBotSlots } from './fleet/bot-slots.js';
import { handleBotExit } from './fleet/exit-handler.js';
import { WorkerHeartbeat } from './fleet/heartbeat.js';
import { Ingester } from './ingest/ingester.js';
import { RedisMemoryWatch } from './metrics/redis-memory-watch.js';
import { serveWorkerMetrics, WorkerMetrics } from './metrics/worker-metrics.js';
import { createControlWorker } from './queues/control-worker.js';
import { createLaunchWorker } from './queues/launch-worker.js';
import { LaunchPlacement } from './queues/placement.js';
import { joinRetryOf } from './retries/bot-outcome.js';
import { createBotCredentials } from './runtime/bot-credentials.js';
import { deploymentLabels } from './runtime/bot-launch-spec.js';
import type { BotHost } from './runtime/bot-host.js';
import { Labels } from './runtime/bot-runtime.js';
import { takeOverBot } from './sweeps/bot-takeover.js';
import { recoverLostHosts } from './sweeps/host-recovery.js';
import { reconcile } from './sweeps/reconciler.js';
import { RecordingSweeper } from './sweeps/recording-sweeper.js';
import { WebhookService } from './webhooks/webhook-deliveries.js';
import type { WorkerDeps } from './worker-deps.js';

/** A finished meeting's recording that got no chunk for this long is completed without its bot. */
const RECORDING_STALE_SECONDS = 60;

/**
 * The Postgres pool and the worker's Redis connections: one for commands and reads, and one for
 * each part that blocks on its own (the queue workers, each ingest stream, the webhook listener).
 */
export interface WorkerConnections {
  db: Knex;
  redis: Redis;
  queueConnection: Redis;
  eventsRedis: Redis;
  segmentsRedis: Redis;
  healthRedis: Redis;
  recordingRedis: Redis;
  webhookSubscriber: Redis;
}

export function openWorkerConnections(config: Config, log: Logger): WorkerConnections {
  return {
    db: createKnex(config.DATABASE_URL, config.DATABASE_POOL_MAX),
    redis: createWorkerRedis(config.REDIS_URL, log),
    queueConnection: createWorkerRedis(config.REDIS_URL, log),
    eventsRedis: createWorkerRedis(config.REDIS_URL, log),
    segmentsRedis: createWorkerRedis(config.REDIS_URL, log),
    healthRedis: createWorkerRedis(config.REDIS_URL, log),
    recordingRedis: createWorkerRedis(config.REDIS_URL, log),
    webhookSubscriber: createWorkerRedis(config.REDIS_URL, log),
  };
}

export interface WorkerParts {
  log: Logger;
  /** Closed by the worker's stop(), last. */
  connections: WorkerConnections;
  /** Where the bots run: a Docker engine (runtime/bot-host.ts) or a Kubernetes namespace (runtime/kubernetes/). */
  host: BotHost;
}

export interface MeetbotWorker {
  /**
   * Re-adopts the bots this worker left running, then starts its parts in order and takes launches;
   * resolves once it has (`worker started`).
   */
  start(): Promise<void>;
  /**
   * Stops taking and applying work, in order, then closes the pool and Redis; bots keep running.
   * Runs once, however often it is called.
   */
  stop(): Promise<void>;
  /** The ordered stop, for the process's signals (installSignalHandlers). */
  readonly shutdown: Shutdown;
}

/**
 * The whole worker process, built and not started (like the API's createApp): every part is made
 * here; start() starts them in the order their start-up needs, stop() stops them in the order of a
 * graceful shutdown.
 */
export function createWorker(config: Config, parts: WorkerParts): MeetbotWorker {
  setBotAccountExpiryUsers(config.BOT_ACCOUNT_EXPIRY_USERS);
  const { log, connections, host } = parts;
  const { db, redis, queueConnection } = connections;
  const credentials = createBotCredentials(redis, config);
  const { runtime } = host;
  const dockerHost = host.name;
  const slots = config.BOT_SLOTS ?? defaultBotSlots(host.machine);
  const fleet = new BotFleet(slots, config.BOT_SETTLE_LIMIT_SECONDS * 1000);
  const lagWatch = new BotLagWatch({ redis, prefix: config.QUEUE_PREFIX, fleet, log });
  const botQueues = createBotQueues(redis, config.QUEUE_PREFIX);
  const announce = meetingAnnouncer(redis, config.QUEUE_PREFIX, log);
  const commands = redisBotCommands(redis, config.QUEUE_PREFIX, {
    maxBytes: config.COMMAND_STREAM_MAX_BYTES,
  });
  const metrics = new WorkerMetrics(
    createMetricsRegistry('worker', { worker: config.WORKER_ID, docker_host: dockerHost }),
    { fleet, runtime, db, workerId: config.WORKER_ID, log, lagWatch },
  );
  const deps: WorkerDeps = {
    config,
    db,
    redis,
    runtime,
    credentials,
    fleet,
    log,
    announce,
    commands,
    metrics,
    jobs: bullBotJobs(botQueues),
  };
  const takeOverDeps = {
    db,
    log,
    runtime,
    fleet,
    workerId: config.WORKER_ID,
    hostName: host.name,
    deploymentLabels: deploymentLabels(config),
  };
  const heartbeat = new WorkerHeartbeat({
    db,
    fleet,
    log,
    workerId: config.WORKER_ID,
    dockerHost,
    intervalSeconds: config.WORKER_HEARTBEAT_SECONDS,
  });
  const recordingStorage = createRecordingStorage(config);
  const ingester = new Ingester({
    db,
    eventsRedis: connections.eventsRedis,
    segmentsRedis: connections.segmentsRedis,
    healthRedis: connections.healthRedis,
    recordingRedis: connections.recordingRedis,
    recordingStorage,
    publisher: redis,
    prefix: config.QUEUE_PREFIX,
    consumerName: config.WORKER_ID,
    onSegmentsCommitted: (written) => metrics.segmentsWritten(written),
    joinRetry: joinRetryOf(deps),
    signalledStopsAwaitExit: runtime.sharedAmongWorkers,
    log,
  });
  const recordingSweeper = new RecordingSweeper(
    { db, storage: recordingStorage, log: log.child({ component: 'recording-sweep' }) },
    {
      staleSeconds: RECORDING_STALE_SECONDS,
      retentionDays: config.RECORDING_RETENTION_DAYS,
      intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
    },
  );
  const placement = new LaunchPlacement({
    db,
    fleet,
    workerId: config.WORKER_ID,
    heartbeatSeconds: config.WORKER_HEARTBEAT_SECONDS,
  });
  // A BullMQ Worker opens its blocking connection and names itself to Redis (Bull Board lists it) as
  // soon as it is made: the queue workers, and the webhook service around one, are made by start().
  const queueWorkers = {
    launch: () => createLaunchWorker(deps, queueConnection, placement),
    control: () => createControlWorker(deps, queueConnection),
    webhooks: () =>
      new WebhookService(
        { config, db, log, onAttempt: (outcome) => metrics.webhookOutcome(outcome) },
        { queue: redis, worker: queueConnection, subscriber: connections.webhookSubscriber },
        config.RECONCILE_INTERVAL_SECONDS * 1000,
      ),
  };
  // Calendar feeds: their occurrences become scheduled bots through the same path as POST /bots.
  const webhookPolicy = outboundAddressPolicyOf(config);
  const calendarPoller = new CalendarPoller(
    {
      bots: {
        db,
        jobs: deps.jobs,
        commands,
        log: log.child({ component: 'calendar-feeds' }),
        ...botServiceSettingsOf(config),
        announce,
        events: domainEvents,
        webhookPolicy,
      },
      settings: calendarFeedSettingsOf(config, webhookPolicy),
      log: log.child({ component: 'calendar-feeds' }),
      metrics,
    },
    calendarPollerOptionsOf(config),
  );
  const reconciler = new PeriodicLoop({
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
    task: async () => {
      const report = await reconcile(deps);
      if (Object.values(report).some((count) => count > 0)) log.info(report, 'reconciled');
      const recovery = await recoverLostHosts(deps, (orphan) => takeOverBot(takeOverDeps, orphan));
      if (Object.values(recovery).some((count) => count > 0)) log.info(recovery, 'lost hosts swept');
    },
    onError: (error) => log.error({ err: error }, 'reconcile failed'),
  });
  const redisMemory = new RedisMemoryWatch({
    redis,
    registry: metrics.registry,
    log: log.child({ component: 'redis-memory' }),
    warnRatio: config.REDIS_MEMORY_WARN_RATIO,
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
  });

  // Set by start(): what it started that stop() must end.
  let stopWatchingExits: (() => void) | undefined;
  let launchWorker: Worker | undefined;
  let controlWorker: Worker | undefined;
  let webhooks: WebhookService | undefined;
  let metricsServer: Server | undefined;

  // Bots keep running through a worker restart: shutting down only stops taking and applying work.
  const shutdown = new Shutdown(log, config.SHUTDOWN_TIMEOUT_MS)
    .add(
      'metrics',
      () =>
        new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())),
    )
    .add('launches', () => heartbeat.drain())
    .add('launch worker', () => launchWorker?.close())
    .add('bot lag watch', () => lagWatch.stop())
    .add('control worker', () => controlWorker?.close())
    .add('webhook deliveries', () => webhooks?.stop())
    .add('reconciler', () => reconciler.stop())
    .add('redis memory watch', () => redisMemory.stop())
    .add('calendar feeds', () => calendarPoller.stop())
    .add('heartbeat', () => heartbeat.stop())
    .add('docker events', () => stopWatchingExits?.())
    .add('ingester', () => ingester.stop())
    .add('recording sweep', () => recordingSweeper.stop())
    .add('recording storage', () => recordingStorage.close())
    .add('postgres pool', () => db.destroy())
    .add('bot queues', () => Promise.all([botQueues.launch.close(), botQueues.control.close()]))
    .add('redis', () =>
      Promise.all(
        [
          redis,
          queueConnection,
          connections.eventsRedis,
          connections.segmentsRedis,
          connections.healthRedis,
          connections.recordingRedis,
        ].map((connection) => connection.quit()),
      ),
    );

  async function start(): Promise<void> {
    // Redis restarted: the bots' users may be gone with it (unless it has an ACL file); their bots
    // retry until they are back, so put them back at once rather than at the next reconcile.
    let redisReadyBefore = redis.status === 'ready';
    redis.on('ready', () => {
      if (!redisReadyBefore) {
        redisReadyBefore = true;
        return;
      }
      restoreLostCredentials(deps).then(
        (restored) =>
          restored > 0 && log.warn({ restored }, 'restored bot credentials after Redis came back'),
        (error: unknown) =>
          log.warn({ err: error }, 'could not restore bot credentials yet; the reconciler will'),
      );
    });
    const onExit = (containerId: string) => {
      handleBotExit(deps, containerId).catch((error: unknown) =>
        log.error({ err: error, containerId }, 'exit handling failed'),
      );
    };

    // Re-adopt the bots this worker left running (and drop those whose meetings moved to another host
    // while it was away) before taking any new work; from now on other workers see it alive.
    const initial = await reconcile(deps);
    await heartbeat.start();
    log.info(
      {
        ...initial,
        slots,
        slotsFrom: config.BOT_SLOTS ? 'BOT_SLOTS' : slotsSource(host),
        runtime: config.BOT_RUNTIME,
        image: config.BOT_IMAGE,
        chromiumSandbox: config.BOT_CHROMIUM_SANDBOX,
        dockerHost,
      },
      'worker reconciled at start-up',
    );
    await checkBotAccountKeysAtStart({ db, config, log });
    if (config.BOT_CHROMIUM_SANDBOX === 'off')
      log.warn(
        "BOT_CHROMIUM_SANDBOX=off: bots run Chromium without its sandbox, under the engine's default seccomp profile; only the container confines a meeting page (docs/how-a-bot-runs.md)",
      );
    stopWatchingExits = await runtime.onExit(
      { ...deploymentLabels(config), [Labels.workerId]: config.WORKER_ID },
      onExit,
    );

    ingester.start();
    recordingSweeper.start();
    launchWorker = queueWorkers.launch();
    controlWorker = queueWorkers.control();
    void launchWorker.run();
    void controlWorker.run();
    lagWatch.start();
    webhooks = queueWorkers.webhooks();
    await webhooks.start();
    calendarPoller.start();
    reconciler.start();
    redisMemory.start();
    metricsServer =
      config.WORKER_METRICS_PORT > 0
        ? await serveWorkerMetrics(metrics.registry, {
            host: config.WORKER_METRICS_HOST,
            port: config.WORKER_METRICS_PORT,
            token: config.METRICS_TOKEN,
          }).catch((error: unknown) => {
            // A second worker on the same host with the default port: it runs, without metrics.
            log.error({ err: error, port: config.WORKER_METRICS_PORT }, 'could not serve /metrics');
            return undefined;
          })
        : undefined;
    log.info({ metricsPort: metricsServer ? config.WORKER_METRICS_PORT : null }, 'worker started');
  }

  return { start, stop: () => shutdown.run(), shutdown };
}

function slotsSource(host: BotHost): string {
  const { machine } = host;
  if (!machine) return "a cluster's default (its scheduler places the bots)";
  return `the engine's ${machine.cpus} CPUs and ${Math.round(machine.memoryBytes / 2 ** 30)} GiB`;
}
