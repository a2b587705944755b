import type { Router } from '@koa/router';
import type { Queue } from 'bullmq';
import Koa from 'koa';
import type { Registry } from 'prom-client';
import { BotAccountSessions } from '../shared/accounts/bot-account-sessions.js';
import type { BotCommands } from '../shared/bots/command-channel.js';
import type { BotJobs } from '../shared/bots/jobs.js';
import { type BotServiceDeps, botServiceSettingsOf } from '../shared/bots/service.js';
import type { SpeechDeps } from '../shared/bots/speech.js';
import type { SpeechQueue } from '../shared/bots/speech-queue.js';
import type { Config } from '../shared/infra/config.js';
import type { Knex } from '../shared/infra/knex.js';
import type { Logger } from '../shared/infra/logger.js';
import { outboundAddressPolicyOf } from '../shared/infra/outbound-address-policy.js';
import { ResponseCache } from '../shared/infra/response-cache.js';
import type { AnnounceChanges, MeetingChangeListener } from '../shared/meetings/changes.js';
import type { RecordingStorage } from '../shared/recordings/storage.js';
import { webhookOutbox } from '../shared/webhooks/record-events.js';
import { bullBoard } from './bull-board.js';
import type { AppState } from './context.js';
import type { OpenFeeds } from './live/open-feeds.js';
import type { LiveSlots } from './live/slots.js';
import type { McpDeps } from './mcp/deps.js';
import { toolbox } from './mcp/tool.js';
import { MCP_TOOLS } from './mcp/tools/index.js';
import { apiMetrics } from './metrics.js';
import { requireAdmin, requireUser } from './middleware/auth.js';
import { errorBodies } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import type { RateLimits } from './middleware/rate-limits.js';
import { requestContext } from './middleware/request-id.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { adminRoutes } from './routes/admin/index.js';
import { botRoutes } from './routes/bots/index.js';
import { screenRoutes } from './routes/bots/screen.js';
import { speechRoutes } from './routes/bots/speech.js';
import { calendarFeedRoutes } from './routes/calendar-feeds/index.js';
import { docsRouter } from './routes/docs.js';
import { healthRoutes, type ReadinessCheck } from './routes/health.js';
import { mcpRoutes } from './routes/mcp/index.js';
import { meetingRoutes } from './routes/meetings/index.js';
import { recordingRoutes } from './routes/recordings/index.js';
import type { RouteKit, RouteLimits } from './routes/route.js';
import { routerOf } from './routes/router.js';
import { searchConcurrencyOf, searchGate } from './routes/search/gate.js';
import { searchRoutes } from './routes/search/index.js';
import { transcriptRoutes } from './routes/transcripts/index.js';
import { DEFAULT_STREAM_OPTIONS, type StreamOptions } from './routes/transcripts/stream.js';
import { userRoutes } from './routes/user/index.js';
import { webAppRouter } from './routes/web-app.js';
import { liveSocketRoutes } from './routes/ws/index.js';

export interface AppDeps {
  config: Config;
  db: Knex;
  jobs: BotJobs;
  /** Reaches running bots through their command streams (reconfigure, speak). */
  commands: BotCommands;
  /** Each running bot's pending speak requests, as the API estimates them (SPEAK_QUEUE_MAX). */
  speechQueue: SpeechQueue;
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
  streamSlots: LiveSlots;
  /** Running searches per user (SEARCH_CONCURRENCY_PER_USER), counted across replicas (./routes/search/gate.ts). */
  searchSlots: LiveSlots;
  /** The live connections (SSE streams, WebSockets) this process has open, ended by its shutdown. */
  openFeeds: OpenFeeds;
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

  const webhookPolicy = outboundAddressPolicyOf(config);
  const botAccountSessions = new BotAccountSessions(config.BOT_ACCOUNT_KEY, config.BOT_ACCOUNT_PREVIOUS_KEYS);
  const cache = new ResponseCache(config.RESPONSE_CACHE_MB * 2 ** 20);
  const limits: RouteLimits = {
    pageSizes: { defaultLimit: config.LIST_DEFAULT_LIMIT, maxLimit: config.LIST_MAX_LIMIT },
    meetingDataMaxBytes: config.MEETING_DATA_MAX_BYTES,
    liveStreamsPerUser: config.LIVE_STREAMS_PER_USER,
  };
  const kit: RouteKit = {
    requireUser: requireUser(db, deps.rateLimits),
    requireUserOrBearer: requireUser(db, deps.rateLimits, { bearer: true }),
    requireUserUnmetered: requireUser(db, deps.rateLimits, { unmetered: true }),
    requireAdmin: requireAdmin(config.ADMIN_API_KEY, deps.rateLimits, {
      publicBaseUrl: config.PUBLIC_BASE_URL,
    }),
    jsonBody: jsonBody({ limitBytes: config.REQUEST_BODY_LIMIT_BYTES }),
    optionalJsonBody: jsonBody({ limitBytes: config.REQUEST_BODY_LIMIT_BYTES, allowEmpty: true }),
    jsonBodyWithin: ({ bytes, hint }) =>
      jsonBody({ limitBytes: Math.max(bytes, config.REQUEST_BODY_LIMIT_BYTES), tooLargeHint: hint }),
    limits,
  };

  // The services' settings, once: the REST routes and the MCP tools (api/mcp/) share them.
  const botDeps: BotServiceDeps = {
    db,
    jobs: deps.jobs,
    commands: deps.commands,
    log: deps.logger,
    ...botServiceSettingsOf(config),
    announce: deps.announce,
    // The composition root of the API's domain events: the meetings' status changes it makes are
    // written to the webhook outbox in their own transaction.
    events: webhookOutbox,
    webhookPolicy,
    signedInBots: botAccountSessions.configured,
  };
  const mediaFetch = {
    idleTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    deadlineMs: config.MEDIA_URL_FETCH_DEADLINE_MS,
  };
  const speechDeps: SpeechDeps = {
    db,
    commands: deps.commands,
    speechQueue: deps.speechQueue,
    webhookPolicy,
    log: deps.logger,
    speakQueueMax: config.SPEAK_QUEUE_MAX,
    audioUrlMaxBytes: config.SPEAK_AUDIO_URL_MAX_BYTES,
    mediaFetch,
  };
  // One gate for GET /search and the MCP search tool: this process's share of the pool for searches.
  const searches = searchGate({
    perUser: deps.searchSlots,
    concurrency: searchConcurrencyOf(config),
    waitMs: config.SEARCH_TIMEOUT_MS,
  });
  const mcpDeps: McpDeps = {
    db,
    bots: botDeps,
    speech: speechDeps,
    rateLimits: deps.rateLimits,
    cache,
    pageSizes: limits.pageSizes,
    meetingDataMaxBytes: limits.meetingDataMaxBytes,
    searchTimeoutMs: config.SEARCH_TIMEOUT_MS,
    searchGate: searches,
    mediaLinkTtlSeconds: config.RECORDING_MEDIA_LINK_TTL_SECONDS,
  };

  const routers: Router<AppState>[] = [
    routerOf(healthRoutes, { checks: deps.readiness }, kit),
    docsRouter(() => buildOpenApiDocument(config.PUBLIC_BASE_URL, limits)),
    webAppRouter({ publicBaseUrl: config.PUBLIC_BASE_URL }),
    routerOf(botRoutes, { ...botDeps, rateLimits: deps.rateLimits }, kit),
    routerOf(speechRoutes, { ...speechDeps, rateLimits: deps.rateLimits }, kit),
    routerOf(
      screenRoutes,
      {
        db,
        commands: deps.commands,
        webhookPolicy,
        log: deps.logger,
        mediaFetch,
        rateLimits: deps.rateLimits,
      },
      kit,
    ),
    routerOf(
      calendarFeedRoutes,
      {
        db,
        webhookPolicy,
        maxPerUser: config.CALENDAR_FEED_MAX_PER_USER,
        bots: { db, events: webhookOutbox, announce: deps.announce },
      },
      kit,
    ),
    routerOf(
      userRoutes,
      { db, webhookPolicy, webhookTimeoutMs: config.WEBHOOK_TIMEOUT_MS, announce: deps.announce },
      kit,
    ),
    routerOf(
      meetingRoutes,
      {
        db,
        dataMaxBytes: limits.meetingDataMaxBytes,
        cache,
        recordingStorage: deps.recordingStorage,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        mediaLinkTtlSeconds: config.RECORDING_MEDIA_LINK_TTL_SECONDS,
      },
      kit,
    ),
    routerOf(searchRoutes, { db, timeoutMs: config.SEARCH_TIMEOUT_MS, gate: searches }, kit),
    routerOf(
      recordingRoutes,
      {
        db,
        storage: deps.recordingStorage,
        rateLimits: deps.rateLimits,
        publicBaseUrl: config.PUBLIC_BASE_URL,
        mediaLinkTtlSeconds: config.RECORDING_MEDIA_LINK_TTL_SECONDS,
      },
      kit,
    ),
    routerOf(
      transcriptRoutes,
      {
        db,
        cache,
        changes: deps.changes,
        slots: deps.streamSlots,
        options: deps.streamOptions ?? DEFAULT_STREAM_OPTIONS,
        openFeeds: deps.openFeeds,
      },
      kit,
    ),
    routerOf(liveSocketRoutes, {}, kit),
    routerOf(
      mcpRoutes,
      { mcp: mcpDeps, tools: toolbox(MCP_TOOLS, mcpDeps), publicBaseUrl: config.PUBLIC_BASE_URL },
      kit,
    ),
    routerOf(
      adminRoutes,
      {
        db,
        defaultMaxConcurrentBots: config.DEFAULT_MAX_CONCURRENT_BOTS,
        webhookPolicy,
        recordingStorage: deps.recordingStorage,
        botAccountSessions,
      },
      kit,
    ),
  ];

  const metrics = apiMetrics(deps.metrics, deps.queues);
  app.use(metrics.timing);
  app.use(requestContext(deps.logger));
  app.use(errorBodies());
  app.use(metrics.endpoint(config.METRICS_TOKEN));
  app.use(
    bullBoard(
      deps.queues,
      requireAdmin(config.ADMIN_API_KEY, deps.rateLimits, {
        browserPrompt: true,
        publicBaseUrl: config.PUBLIC_BASE_URL,
      }),
      { publicBaseUrl: config.PUBLIC_BASE_URL },
    ),
  );
  for (const router of routers) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  return app;
}
