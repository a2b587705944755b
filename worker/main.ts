import Docker from 'dockerode';
import { redisBotCommands } from '../shared/bots/command-channel.js';
import { bullBotJobs } from '../shared/bots/jobs.js';
import { PeriodicLoop } from '../shared/infra/background-loop.js';
import { loadConfigOrExit } from '../shared/infra/config.js';
import { createKnex } from '../shared/infra/knex.js';
import { createLogger } from '../shared/infra/logger.js';
import { createMetricsRegistry } from '../shared/infra/metrics.js';
import { createBotQueues } from '../shared/infra/queues.js';
import { createWorkerRedis } from '../shared/infra/redis.js';
import { Shutdown } from '../shared/infra/shutdown.js';
import { meetingAnnouncer } from '../shared/meetings/changes.js';
import { createRecordingStorage } from '../shared/recordings/create-storage.js';
import { webhookPolicyOf } from '../shared/webhooks/address-policy.js';
import { BotFleet } from './bot-fleet.js';
import { joinRetryOf } from './bot-outcome.js';
import { BotLagWatch } from './bot-lag-watch.js';
import { CalendarPoller, calendarFeedSettingsOf, calendarPollerOptionsOf } from './calendar-poller.js';
import { restoreLostCredentials } from './bot-sessions.js';
import { defaultBotSlots, type EngineMachine } from './bot-slots.js';
import { WorkerHeartbeat } from './heartbeat.js';
import { recoverLostHosts } from './host-recovery.js';
import { Ingester } from './ingest/ingester.js';
import { serveWorkerMetrics, WorkerMetrics } from './metrics.js';
import { LaunchPlacement } from './placement.js';
import { createControlWorker, createLaunchWorker } from './queue-workers.js';
import { reconcile } from './reconciler.js';
import { RecordingSweeper } from './recording-sweeper.js';
import { RedisMemoryWatch } from './redis-memory-watch.js';
import { checkAclAllowed, createBotCredentials } from './runtime/bot-credentials.js';
import { redisAnswersWithoutCredential } from './runtime/redis-exposure.js';
import { deploymentLabels } from './runtime/bot-launch-spec.js';
import { Labels } from './runtime/bot-runtime.js';
import { DockerRuntime } from './runtime/docker-runtime.js';
import { handleBotExit } from './runtime/exit-handler.js';
import { setBotAccountExpiryUsers } from './bot-account-expiry.js';
import { checkBotAccountKeysAtStart } from './bot-account-key-check.js';
import { domainEvents } from './domain-events.js';
import { WebhookService } from './webhook-deliveries.js';
import type { WorkerDeps } from './worker-deps.js';

/** A finished meeting's recording that got no chunk for this long is completed without its bot. */
const RECORDING_STALE_SECONDS = 60;

const config = loadConfigOrExit();
setBotAccountExpiryUsers(config.BOT_ACCOUNT_EXPIRY_USERS);
const log = createLogger('worker', config.LOG_LEVEL).child({ workerId: config.WORKER_ID });
const db = createKnex(config.DATABASE_URL, config.DATABASE_POOL_MAX);
const redis = createWorkerRedis(config.REDIS_URL, log);
const queueConnection = createWorkerRedis(config.REDIS_URL, log);
const eventsRedis = createWorkerRedis(config.REDIS_URL, log);
const segmentsRedis = createWorkerRedis(config.REDIS_URL, log);
const healthRedis = createWorkerRedis(config.REDIS_URL, log);
const recordingRedis = createWorkerRedis(config.REDIS_URL, log);
const webhookSubscriber = createWorkerRedis(config.REDIS_URL, log);
// Before anything starts: bots are given credentials of their own only where that means something.
const credentials = createBotCredentials(redis, config);
try {
  if (credentials.perBot) await checkAclAllowed(redis, config);
  if (await redisAnswersWithoutCredential(config.REDIS_URL)) {
    const open =
      "Redis answers a client that gives no credential (its default user needs no password): a bot shares the host's network and could connect without its own credential and reach every key; give the default user a password (requirepass) and put it in REDIS_URL (docs/how-a-bot-runs.md#what-a-bot-may-reach)";
    if (config.REDIS_OPEN_DEFAULT_USER === 'allow')
      log.warn(`${open}; REDIS_OPEN_DEFAULT_USER=allow: starting anyway`);
    else {
      log.fatal(`${open}, or set REDIS_OPEN_DEFAULT_USER=allow to start bots anyway`);
      process.exit(1);
    }
  }
} catch (error) {
  log.fatal({ err: error }, 'cannot give bots credentials of their own');
  process.exit(1);
}
if (!credentials.perBot) {
  log.warn(
    'BOT_REDIS_ACL=off: every bot gets the deployment Redis URL with full rights (any bot can reach every key, queue and channel); see docs/settings.md',
  );
}
const docker = new Docker();
const runtime = new DockerRuntime(docker, log);
const engine = await engineInfo(docker);
const dockerHost = config.DOCKER_HOST_NAME ?? engine.name;
const slots = config.BOT_SLOTS ?? defaultBotSlots(engine);
const fleet = new BotFleet(slots, config.BOT_SETTLE_LIMIT_SECONDS * 1000);
const lagWatch = new BotLagWatch({ redis, prefix: config.QUEUE_PREFIX, fleet, log });
const botQueues = createBotQueues(redis, config.QUEUE_PREFIX);
const announce = meetingAnnouncer(redis, config.QUEUE_PREFIX, log);
const commands = redisBotCommands(redis, config.QUEUE_PREFIX, { maxBytes: config.COMMAND_STREAM_MAX_BYTES });
const metrics = new WorkerMetrics(
  createMetricsRegistry('worker', { worker: config.WORKER_ID, docker_host: dockerHost }),
  {
    fleet,
    runtime,
    db,
    workerId: config.WORKER_ID,
    log,
    lagWatch,
  },
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
const heartbeat = new WorkerHeartbeat({
  db,
  fleet,
  log,
  workerId: config.WORKER_ID,
  dockerHost,
  intervalSeconds: config.WORKER_HEARTBEAT_SECONDS,
});

// Redis restarted: the bots' users may be gone with it (unless it has an ACL file); their bots
// retry until they are back, so put them back at once rather than at the next reconcile.
let redisReadyBefore = redis.status === 'ready';
redis.on('ready', () => {
  if (!redisReadyBefore) {
    redisReadyBefore = true;
    return;
  }
  restoreLostCredentials(deps).then(
    (restored) => restored > 0 && log.warn({ restored }, 'restored bot credentials after Redis came back'),
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
    slotsFrom: config.BOT_SLOTS
      ? 'BOT_SLOTS'
      : `the engine's ${engine.cpus} CPUs and ${Math.round(engine.memoryBytes / 2 ** 30)} GiB`,
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
const stopWatchingExits = await runtime.onExit(
  { ...deploymentLabels(config), [Labels.workerId]: config.WORKER_ID },
  onExit,
);

const recordingStorage = createRecordingStorage(config);
const ingester = new Ingester({
  db,
  eventsRedis,
  segmentsRedis,
  healthRedis,
  recordingRedis,
  recordingStorage,
  publisher: redis,
  prefix: config.QUEUE_PREFIX,
  consumerName: config.WORKER_ID,
  onSegmentsCommitted: (written) => metrics.segmentsWritten(written),
  joinRetry: joinRetryOf(deps),
  log,
});
ingester.start();
const recordingSweeper = new RecordingSweeper(
  { db, storage: recordingStorage, log: log.child({ component: 'recording-sweep' }) },
  {
    staleSeconds: RECORDING_STALE_SECONDS,
    retentionDays: config.RECORDING_RETENTION_DAYS,
    intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
  },
);
recordingSweeper.start();

const placement = new LaunchPlacement({
  db,
  fleet,
  workerId: config.WORKER_ID,
  heartbeatSeconds: config.WORKER_HEARTBEAT_SECONDS,
});
const launchWorker = createLaunchWorker(deps, queueConnection, placement);
const controlWorker = createControlWorker(deps, queueConnection);
void launchWorker.run();
void controlWorker.run();
lagWatch.start();

const webhooks = new WebhookService(
  { config, db, log, onAttempt: (outcome) => metrics.webhookOutcome(outcome) },
  { queue: redis, worker: queueConnection, subscriber: webhookSubscriber },
  config.RECONCILE_INTERVAL_SECONDS * 1000,
);
await webhooks.start();

// Calendar feeds: their occurrences become scheduled bots through the same path as POST /bots.
const webhookPolicy = webhookPolicyOf(config);
const calendarPoller = new CalendarPoller(
  {
    bots: {
      db,
      jobs: deps.jobs,
      commands,
      log: log.child({ component: 'calendar-feeds' }),
      defaultBotName: config.DEFAULT_BOT_NAME,
      recordingEnabledDefault: config.RECORDING_ENABLED_DEFAULT,
      extraMeetingOrigins: config.EXTRA_MEETING_ORIGINS,
      announce,
      events: domainEvents,
      webhookPolicy,
      transcriptionEngine: config.TRANSCRIPTION_ENGINE,
      schedule: {
        horizonDays: config.BOT_SCHEDULE_HORIZON_DAYS,
        clockSkewSeconds: config.BOT_SCHEDULE_CLOCK_SKEW_SECONDS,
        maxWaitingPerUser: config.MAX_SCHEDULED_BOTS_PER_USER,
      },
    },
    settings: calendarFeedSettingsOf(config, webhookPolicy),
    log: log.child({ component: 'calendar-feeds' }),
    metrics,
  },
  calendarPollerOptionsOf(config),
);
calendarPoller.start();

const reconciler = new PeriodicLoop({
  intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
  task: async () => {
    const report = await reconcile(deps);
    if (Object.values(report).some((count) => count > 0)) log.info(report, 'reconciled');
    const recovery = await recoverLostHosts(deps);
    if (Object.values(recovery).some((count) => count > 0)) log.info(recovery, 'lost hosts swept');
  },
  onError: (error) => log.error({ err: error }, 'reconcile failed'),
});
reconciler.start();
const redisMemory = new RedisMemoryWatch({
  redis,
  registry: metrics.registry,
  log: log.child({ component: 'redis-memory' }),
  warnRatio: config.REDIS_MEMORY_WARN_RATIO,
  intervalMs: config.RECONCILE_INTERVAL_SECONDS * 1000,
});
redisMemory.start();
const metricsServer =
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

// Bots keep running through a worker restart: shutting down only stops taking and applying work.
new Shutdown(log, config.SHUTDOWN_TIMEOUT_MS)
  .add(
    'metrics',
    () => new Promise<void>((resolve) => (metricsServer ? metricsServer.close(() => resolve()) : resolve())),
  )
  .add('launches', () => heartbeat.drain())
  .add('launch worker', () => launchWorker.close())
  .add('bot lag watch', () => lagWatch.stop())
  .add('control worker', () => controlWorker.close())
  .add('webhook deliveries', () => webhooks.stop())
  .add('reconciler', () => reconciler.stop())
  .add('redis memory watch', () => redisMemory.stop())
  .add('calendar feeds', () => calendarPoller.stop())
  .add('heartbeat', () => heartbeat.stop())
  .add('docker events', () => stopWatchingExits())
  .add('ingester', () => ingester.stop())
  .add('recording sweep', () => recordingSweeper.stop())
  .add('recording storage', () => recordingStorage.close())
  .add('postgres pool', () => db.destroy())
  .add('bot queues', () => Promise.all([botQueues.launch.close(), botQueues.control.close()]))
  .add('redis', () =>
    Promise.all(
      [redis, queueConnection, eventsRedis, segmentsRedis, healthRedis, recordingRedis].map((connection) =>
        connection.quit(),
      ),
    ),
  )
  .installSignalHandlers();

/** The engine's own name and id (`docker info`), which tell hosts apart in heartbeats and metrics. */
/** The engine's name (host name and a short id) and the machine it runs bots on. */
async function engineInfo(engine: Docker): Promise<EngineMachine & { name: string }> {
  const info = (await engine.info()) as { Name?: string; ID?: string; NCPU?: number; MemTotal?: number };
  const name = `${info.Name ?? 'docker'}:${(info.ID ?? '').replace(/[^A-Za-z0-9]/g, '').slice(0, 12)}`;
  return {
    name: name.replace(/[^A-Za-z0-9_.:-]/g, '-').slice(0, 200),
    cpus: info.NCPU ?? 1,
    memoryBytes: info.MemTotal ?? 0,
  };
}
