import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type Koa from 'koa';
import { createApp } from '../../api/app.js';
import type { AppState } from '../../api/context.js';
import { answerMalformedRequests, withKeepAlive } from '../../api/http-server.js';
import { OpenFeeds } from '../../api/live/open-feeds.js';
import { audioSocketSlots, liveSocketSlots, liveStreamSlots } from '../../api/live/slots.js';
import { noRateLimits, redisRateLimits } from '../../api/middleware/rate-limits.js';
import { searchSlots } from '../../api/routes/search/gate.js';
import type { StreamOptions } from '../../api/routes/transcripts/stream.js';
import type { AudioSocketSettings } from '../../api/ws/audio-session.js';
import {
  AUTH_TIMEOUT_MS,
  attachLiveSockets,
  liveSocketSettings,
  socketSlotStaleMs,
} from '../../api/ws/server.js';
import type { LiveSocketSettings } from '../../api/ws/session.js';
import { findOrCreateUser, issueApiKey } from '../../shared/accounts/service.js';
import { type BotCommands, redisBotCommands } from '../../shared/bots/command-channel.js';
import { type BotJobs, bullBotJobs } from '../../shared/bots/jobs.js';
import { redisSpeechQueue } from '../../shared/bots/speech-queue.js';
import { type Config, parseConfig } from '../../shared/infra/config.js';
import { createLogger, type Logger } from '../../shared/infra/logger.js';
import { createMetricsRegistry } from '../../shared/infra/metrics.js';
import { type BotQueues, createBotQueues } from '../../shared/infra/queues.js';
import { MeetingChangeListener, meetingAnnouncer } from '../../shared/meetings/changes.js';
import { createRecordingStorage } from '../../shared/recordings/create-storage.js';
import type { RecordingStorage } from '../../shared/recordings/storage.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { TEST_REDIS_URL } from './env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from './redis.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';
export const SIMULATOR_ORIGIN = 'http://127.0.0.1:4100';

export interface TestUser {
  id: number;
  email: string;
  key: string;
}

export interface TestApi {
  baseUrl: string;
  /** The Koa app itself, for tests that read how it is put together (its routers). */
  app: Koa<AppState>;
  config: Config;
  database: TestDatabase;
  redis: Redis;
  queues: BotQueues;
  prefix: string;
  /** The API's recording storage (RECORDING_STORAGE; by default a temporary directory of this API's own). */
  recordingStorage: RecordingStorage;
  /** Its open live connections (SSE streams, WebSockets). */
  openFeeds: OpenFeeds;
  createUser(options?: { maxConcurrentBots?: number; email?: string }): Promise<TestUser>;
  /** fetch against the API, JSON in and out. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  key?: string | undefined;
  adminKey?: string;
  json?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers
  body: any;
  text: string;
}

let userCounter = 0;

/** The real app on a random port, with its own database and queue prefix. */
export async function startTestApi(
  options: {
    env?: Record<string, string>;
    jobs?: (queues: BotQueues) => BotJobs;
    commands?: BotCommands;
    /** Enforce the configured rate limits (off by default: tests make many requests on purpose). */
    rateLimited?: boolean;
    /** A second API replica: same database, Redis and key prefix as this one (which owns their cleanup). */
    replicaOf?: TestApi;
    /** The Redis to use instead of TEST_REDIS_URL. */
    redisUrl?: string;
    /** The Postgres server to create the test database on instead of TEST_DATABASE_URL's. */
    postgresUrl?: string;
    /** The recording storage instead of the one the config names (closed with the API). */
    recordingStorage?: (config: Config) => RecordingStorage;
    /** The API's logger instead of one writing at TEST_LOG_LEVEL (to read what it logs). */
    logger?: Logger;
    /** The WebSocket feed's settings instead of the config's (e.g. a shorter wait for the auth message). */
    liveSockets?: Partial<LiveSocketSettings>;
    /** The audio sockets' settings instead of the config's (e.g. a small send limit). */
    audioSockets?: Partial<AudioSocketSettings>;
  } = {},
): Promise<TestApi> {
  const database = options.replicaOf?.database ?? (await createTestDatabase(options.postgresUrl));
  const prefix = options.replicaOf?.prefix ?? uniquePrefix('api');
  const recordingDir =
    options.replicaOf?.config.RECORDING_DIR ?? (await mkdtemp(join(tmpdir(), 'meetbot-recordings-')));
  const redisUrl = options.redisUrl ?? options.replicaOf?.config.REDIS_URL ?? TEST_REDIS_URL;
  const config = parseConfig({
    DATABASE_URL: database.url,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN_KEY,
    EXTRA_MEETING_ORIGINS: SIMULATOR_ORIGIN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    RECORDING_DIR: recordingDir,
    ...options.env,
  });
  const recordingStorage = options.recordingStorage?.(config) ?? createRecordingStorage(config);
  const redis = createTestRedis(redisUrl);
  // Connected before the first request: the rate limiters fall back to per-process counters while
  // their Redis client is not ready yet, which would split a test's counts in two.
  await redis.ping();
  const queues = createBotQueues(redis, prefix);
  const logger = options.logger ?? createLogger('api-test', config.LOG_LEVEL);
  const changes = new MeetingChangeListener(createTestRedis(redisUrl), prefix, logger);
  // A poll too slow for any test to pass by: live updates must come from the Redis announcements.
  const streamOptions: StreamOptions = { pollMs: 60_000, endQuietMs: 1500, heartbeatMs: 15_000 };
  const rateLimits = options.rateLimited ? redisRateLimits(redis, prefix, config) : noRateLimits;
  const openFeeds = new OpenFeeds();
  const app = createApp({
    changes,
    announce: meetingAnnouncer(redis, prefix, logger),
    streamOptions,
    config,
    db: database.db,
    jobs: options.jobs ? options.jobs(queues) : bullBotJobs(queues),
    commands:
      options.commands ?? redisBotCommands(redis, prefix, { maxBytes: config.COMMAND_STREAM_MAX_BYTES }),
    speechQueue: redisSpeechQueue(redis, prefix),
    rateLimits,
    metrics: createMetricsRegistry('api', { deployment: prefix }),
    streamSlots: liveStreamSlots(redis, prefix, {
      perUser: config.LIVE_STREAMS_PER_USER,
      staleMs: 45_000,
      log: logger,
    }),
    searchSlots: searchSlots(redis, prefix, {
      perUser: config.SEARCH_CONCURRENCY_PER_USER,
      timeoutMs: config.SEARCH_TIMEOUT_MS,
      log: logger,
    }),
    openFeeds,
    logger,
    recordingStorage,
    queues: [queues.launch, queues.control],
    readiness: {
      postgres: async () => {
        await database.db.raw('SELECT 1');
      },
      redis: async () => {
        await redis.ping();
      },
    },
  });
  const handleRequest = app.callback();
  const server: Server = withKeepAlive(answerMalformedRequests(createServer(handleRequest)));
  attachLiveSockets(server, {
    handleRequest,
    db: database.db,
    changes,
    rateLimits,
    slots: liveSocketSlots(redis, prefix, {
      perKey: config.WS_SOCKETS_PER_KEY,
      staleMs: socketSlotStaleMs(config),
      log: logger,
    }),
    openFeeds,
    log: logger,
    settings: { ...liveSocketSettings(config, streamOptions), ...options.liveSockets },
    messageMaxBytes: config.WS_MESSAGE_MAX_BYTES,
    trustProxy: config.TRUST_PROXY,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    audio: {
      db: database.db,
      rateLimits,
      slots: audioSocketSlots(redis, prefix, {
        perUser: config.AUDIO_SOCKETS_PER_USER,
        staleMs: socketSlotStaleMs(config),
        log: logger,
      }),
      openFeeds,
      log: logger,
      streamPrefix: prefix,
      openRedis: () => createTestRedis(redisUrl),
      redis,
      settings: {
        pingIntervalMs: config.WS_PING_INTERVAL_SECONDS * 1000,
        authTimeoutMs: AUTH_TIMEOUT_MS,
        statusCheckMs: 500,
        ...options.audioSockets,
      },
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const request: TestApi['request'] = async (method, path, requestOptions = {}) => {
    const headers: Record<string, string> = { ...requestOptions.headers };
    if (requestOptions.key !== undefined) headers['X-API-Key'] = requestOptions.key;
    if (requestOptions.adminKey !== undefined) headers['X-Admin-API-Key'] = requestOptions.adminKey;
    let body: string | undefined;
    if (requestOptions.json !== undefined) {
      body = JSON.stringify(requestOptions.json);
      headers['Content-Type'] ??= 'application/json';
    } else if (requestOptions.rawBody !== undefined) {
      body = requestOptions.rawBody;
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  return {
    baseUrl,
    app,
    config,
    database,
    redis,
    queues,
    prefix,
    recordingStorage,
    openFeeds,
    request,
    async createUser(userOptions = {}) {
      userCounter += 1;
      const email = userOptions.email ?? `user${userCounter}-${prefix}@example.com`;
      const { user } = await findOrCreateUser(
        database.db,
        { email, maxConcurrentBots: userOptions.maxConcurrentBots ?? 3 },
        3,
      );
      const { token } = await issueApiKey(database.db, user.id, 'test');
      return { id: user.id, email: user.email, key: token };
    },
    async close() {
      await openFeeds.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await changes.close();
      await Promise.all([queues.launch.close(), queues.control.close()]);
      if (!options.replicaOf) await deleteKeys(redis, prefix);
      redis.disconnect();
      await recordingStorage.close();
      if (!options.replicaOf) await database.drop();
      if (!options.replicaOf) await rm(recordingDir, { recursive: true, force: true });
    },
  };
}

/** A valid create-bot body for each platform. */
export function googleMeetBot(nativeMeetingId = 'abc-defg-hij', extra: Record<string, unknown> = {}) {
  return { platform: 'google_meet', native_meeting_id: nativeMeetingId, bot_name: 'Test Bot', ...extra };
}

export function teamsBot(nativeMeetingId = '123456789012', extra: Record<string, unknown> = {}) {
  return {
    platform: 'teams',
    native_meeting_id: nativeMeetingId,
    passcode: 'Abc123',
    meeting_url: `https://teams.microsoft.com/meet/${nativeMeetingId}?p=Abc123`,
    ...extra,
  };
}

/** The spec's meeting object: exactly these members. */
export const MEETING_FIELDS = [
  'bot_container_id',
  'created_at',
  'data',
  'end_time',
  'id',
  'native_meeting_id',
  'platform',
  'start_time',
  'status',
] as const;

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;
