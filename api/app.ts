import type { Router } from '@koa/router';
import type { Queue } from 'bullmq';
import Koa from 'koa';
import type { Registry } from 'prom-client';
import type { BotCommands } from '../shared/bots/command-channel.js';
import type { BotJobs } from '../shared/bots/jobs.js';
import type { Config } from '../shared/infra/config.js';
import type { Knex } from '../shared/infra/knex.js';
import type { Logger } from '../shared/infra/logger.js';
import { ResponseCache } from '../shared/infra/response-cache.js';
import type { AnnounceChanges, MeetingChangeListener } from '../shared/meetings/changes.js';
import type { RecordingStorage } from '../shared/recordings/storage.js';
import { webhookPolicyOf } from '../shared/webhooks/address-policy.js';
import { webhookOutbox } from '../shared/webhooks/record-events.js';
import { bullBoard } from './bull-board.js';
import type { AppState } from './context.js';
import { apiMetrics } from './metrics.js';
import { requireAdmin, requireUser } from './middleware/auth.js';
import { errorBodies } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import type { RateLimits } from './middleware/rate-limits.js';
import { requestContext } from './middleware/request-id.js';
import { buildOpenApiDocument } from './openapi.js';
import { adminRouter } from './routes/admin/index.js';
import { botsRouter } from './routes/bots/index.js';
import { docsRouter } from './routes/docs.js';
import { healthRouter, type ReadinessCheck } from './routes/health.js';
import { meetingsRouter } from './routes/meetings/index.js';
import { recordingsRouter } from './routes/recordings/index.js';
import { transcriptsRouter } from './routes/transcripts/index.js';
import { type StreamOptions, transcriptStreamRouter } from './routes/transcripts/stream.js';
import type { StreamSlots } from './routes/transcripts/stream-slots.js';
import { userRouter } from './routes/user/index.js';

export interface AppDeps {
  config: Config;
  db: Knex;
  jobs: BotJobs;
  /** Reaches running bots through their command streams (reconfigure). */
  commands: BotCommands;
  logger: Logger;
  /** Queues shown in Bull Board. */
  queues: readonly Queue[];
  readiness: Record<string, ReadinessCheck>;
  /** Wakes live transcript streams when a meeting changes (Redis pub/sub). */
  changes: MeetingChangeListener;
  /** Announces committed changes to the live streams of every API replica. */
  announce: AnnounceChanges;
  streamOptions?: StreamOptions;
  /** Per-key request rate and per-address failed authentications (Redis, shared by replicas). */
  rateLimits: RateLimits;
  /** Open live streams per user (LIVE_STREAMS_PER_USER), counted across replicas. */
  streamSlots: StreamSlots;
  /** This process's Prometheus registry (GET /metrics). */
  metrics: Registry;
  /** Where recordings are kept (RECORDING_STORAGE): media is read from it, deleted recordings removed. */
  recordingStorage: RecordingStorage;
}

/** The whole HTTP app; the middleware order lives here and nowhere else. */
export function createApp(deps: AppDeps): Koa<AppState> {
  const { config, db } = deps;
  const app = new Koa<AppState>({ proxy: config.TRUST_PROXY });
  app.silent = true; // errors are logged by our own middleware, with the request id

  const user = requireUser(db, deps.rateLimits);
  const body = jsonBody({ limitBytes: config.REQUEST_BODY_LIMIT_BYTES });
  const optionalBody = jsonBody({ limitBytes: config.REQUEST_BODY_LIMIT_BYTES, allowEmpty: true });
  const admin = requireAdmin(config.ADMIN_API_KEY, deps.rateLimits);
  const webhookPolicy = webhookPolicyOf(config);
  const pageSizes = { defaultLimit: config.LIST_DEFAULT_LIMIT, maxLimit: config.LIST_MAX_LIMIT };
  const cache = new ResponseCache(config.RESPONSE_CACHE_MB * 2 ** 20);

  const routers: Router<AppState>[] = [
    healthRouter(deps.readiness),
    docsRouter(() =>
      buildOpenApiDocument(config.PUBLIC_BASE_URL, {
        listDefaultLimit: config.LIST_DEFAULT_LIMIT,
        listMaxLimit: config.LIST_MAX_LIMIT,
        meetingDataMaxBytes: config.MEETING_DATA_MAX_BYTES,
        liveStreamsPerUser: config.LIVE_STREAMS_PER_USER,
      }),
    ),
    botsRouter({
      db,
      jobs: deps.jobs,
      commands: deps.commands,
      log: deps.logger,
      defaultBotName: config.DEFAULT_BOT_NAME,
      recordingEnabledDefault: config.RECORDING_ENABLED_DEFAULT,
      extraMeetingOrigins: config.EXTRA_MEETING_ORIGINS,
      announce: deps.announce,
      // The composition root of the API's domain events: the meetings' status changes it makes are
      // written to the webhook outbox in their own transaction.
      events: webhookOutbox,
      webhookPolicy,
      requireUser: user,
      jsonBody: body,
    }),
    userRouter({
      pageSizes,
      db,
      requireUser: user,
      jsonBody: body,
      webhookPolicy,
      webhookTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
      announce: deps.announce,
    }),
    meetingsRouter({
      db,
      requireUser: user,
      jsonBody: body,
      pageSizes,
      dataMaxBytes: config.MEETING_DATA_MAX_BYTES,
      cache,
      recordingStorage: deps.recordingStorage,
      publicBaseUrl: config.PUBLIC_BASE_URL,
    }),
    recordingsRouter({
      db,
      storage: deps.recordingStorage,
      requireUser: user,
      rateLimits: deps.rateLimits,
      publicBaseUrl: config.PUBLIC_BASE_URL,
    }),
    transcriptsRouter({ db, requireUser: user, cache }),
    transcriptStreamRouter({
      db,
      requireUser: user,
      changes: deps.changes,
      slots: deps.streamSlots,
      options: deps.streamOptions,
    }),
    adminRouter({
      pageSizes,
      db,
      requireAdmin: admin,
      jsonBody: body,
      optionalJsonBody: optionalBody,
      defaultMaxConcurrentBots: config.DEFAULT_MAX_CONCURRENT_BOTS,
      webhookPolicy,
    }),
  ];

  const metrics = apiMetrics(deps.metrics, deps.queues);
  app.use(metrics.timing);
  app.use(requestContext(deps.logger));
  app.use(errorBodies());
  app.use(metrics.endpoint(config.METRICS_TOKEN));
  app.use(
    bullBoard(deps.queues, requireAdmin(config.ADMIN_API_KEY, deps.rateLimits, { browserPrompt: true })),
  );
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
