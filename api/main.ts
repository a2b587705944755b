import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redisBotCommands } from '../shared/bots/command-channel.js';
import { bullBotJobs } from '../shared/bots/jobs.js';
import { redisSpeechQueue } from '../shared/bots/speech-queue.js';
import { loadConfigOrExit } from '../shared/infra/config.js';
import { createKnex } from '../shared/infra/knex.js';
import { createLogger } from '../shared/infra/logger.js';
import { createMetricsRegistry } from '../shared/infra/metrics.js';
import { createBotQueues, createWebhookQueue } from '../shared/infra/queues.js';
import { createProducerRedis, createWorkerRedis, waitForRedis } from '../shared/infra/redis.js';
import { Shutdown } from '../shared/infra/shutdown.js';
import { MeetingChangeListener, meetingAnnouncer } from '../shared/meetings/changes.js';
import { createRecordingStorage } from '../shared/recordings/create-storage.js';
import { createApp } from './app.js';
import { answerMalformedRequests, stopServing, withKeepAlive } from './http-server.js';
import { OpenFeeds } from './live/open-feeds.js';
import { audioSocketSlots, liveSocketSlots, liveStreamSlots } from './live/slots.js';
import { redisRateLimits } from './middleware/rate-limits.js';
import { searchSlots } from './routes/search/gate.js';
import { DEFAULT_STREAM_OPTIONS } from './routes/transcripts/stream.js';
import {
  AUDIO_STATUS_CHECK_MS,
  AUTH_TIMEOUT_MS,
  attachLiveSockets,
  liveSocketSettings,
  socketSlotStaleMs,
} from './ws/server.js';

const config = loadConfigOrExit();
const logger = createLogger('api', config.LOG_LEVEL);
const db = createKnex(config.DATABASE_URL, config.DATABASE_POOL_MAX);
const redis = createProducerRedis(config.REDIS_URL, logger);
const queues = createBotQueues(redis, config.QUEUE_PREFIX);
// Only shown in Bull Board here: the workers queue and run the deliveries.
const webhookQueue = createWebhookQueue(redis, config.QUEUE_PREFIX);
for (const queue of [queues.launch, queues.control, webhookQueue]) {
  queue.on('error', (error: Error) => logger.warn({ err: error }, 'queue error'));
}

if (!(await waitForRedis(redis, 5000)))
  logger.warn('Redis is not reachable yet; bot requests will get 503 until it is');

// Subscriptions block their connection: live streams get one of their own.
const subscriber = createWorkerRedis(config.REDIS_URL, logger);
const changes = new MeetingChangeListener(subscriber, config.QUEUE_PREFIX, logger);
const recordingStorage = createRecordingStorage(config);
const openFeeds = new OpenFeeds();
const rateLimits = redisRateLimits(redis, config.QUEUE_PREFIX, config);

const app = createApp({
  changes,
  announce: meetingAnnouncer(redis, config.QUEUE_PREFIX, logger),
  config,
  db,
  jobs: bullBotJobs(queues),
  commands: redisBotCommands(redis, config.QUEUE_PREFIX, { maxBytes: config.COMMAND_STREAM_MAX_BYTES }),
  speechQueue: redisSpeechQueue(redis, config.QUEUE_PREFIX),
  rateLimits,
  metrics: createMetricsRegistry('api'),
  streamSlots: liveStreamSlots(redis, config.QUEUE_PREFIX, {
    perUser: config.LIVE_STREAMS_PER_USER,
    staleMs: 3 * DEFAULT_STREAM_OPTIONS.heartbeatMs,
    log: logger,
  }),
  searchSlots: searchSlots(redis, config.QUEUE_PREFIX, {
    perUser: config.SEARCH_CONCURRENCY_PER_USER,
    timeoutMs: config.SEARCH_TIMEOUT_MS,
    log: logger,
  }),
  openFeeds,
  logger,
  recordingStorage,
  queues: [queues.launch, queues.control, webhookQueue],
  readiness: {
    postgres: async () => {
      await db.raw('SELECT 1');
    },
    redis: async () => {
      await redis.ping();
    },
  },
});

const handleRequest = app.callback();
const server = withKeepAlive(answerMalformedRequests(createServer(handleRequest)));
attachLiveSockets(server, {
  handleRequest,
  db,
  changes,
  rateLimits,
  slots: liveSocketSlots(redis, config.QUEUE_PREFIX, {
    perKey: config.WS_SOCKETS_PER_KEY,
    staleMs: socketSlotStaleMs(config),
    log: logger,
  }),
  openFeeds,
  log: logger,
  settings: liveSocketSettings(config, DEFAULT_STREAM_OPTIONS),
  messageMaxBytes: config.WS_MESSAGE_MAX_BYTES,
  trustProxy: config.TRUST_PROXY,
  publicBaseUrl: config.PUBLIC_BASE_URL,
  audio: {
    db,
    rateLimits,
    slots: audioSocketSlots(redis, config.QUEUE_PREFIX, {
      perUser: config.AUDIO_SOCKETS_PER_USER,
      staleMs: socketSlotStaleMs(config),
      log: logger,
    }),
    openFeeds,
    log: logger,
    streamPrefix: config.QUEUE_PREFIX,
    openRedis: () => createWorkerRedis(config.REDIS_URL, logger),
    redis,
    settings: {
      pingIntervalMs: config.WS_PING_INTERVAL_SECONDS * 1000,
      authTimeoutMs: AUTH_TIMEOUT_MS,
      statusCheckMs: AUDIO_STATUS_CHECK_MS,
    },
  },
});
server.listen(config.API_PORT, config.API_HOST, () => {
  const { port } = server.address() as AddressInfo;
  logger.info({ host: config.API_HOST, port }, 'api listening');
});

new Shutdown(logger, config.SHUTDOWN_TIMEOUT_MS)
  .add('http server', () => stopServing(server, openFeeds))
  .add('queues', () => Promise.all([queues.launch.close(), queues.control.close(), webhookQueue.close()]))
  .add('live streams', () => changes.close())
  .add('recording storage', () => recordingStorage.close())
  .add('postgres pool', () => db.destroy())
  .add('redis', () => redis.quit())
  .installSignalHandlers();
