import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import {
  AUDIO_CAPTURE_MODES,
  DEFAULT_EMBEDDED_PROFILE,
  EMBEDDED_PROFILES,
  FLITE_VOICES,
} from '../contract/bot-config.js';
import { SPEAK_AUDIO_MAX_BYTES } from '../contract/commands.js';
import { SEGMENT_TIME_MAX_SECONDS } from '../contract/events.js';
import { TRANSCRIPTION_ENGINES } from '../contract/languages.js';
import { sealingKeyFrom } from './sealing.js';

const commaList = z
  .string()
  .default('')
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );

const originList = commaList.pipe(
  z.array(
    z.url({
      protocol: /^https?$/,
      error: 'each entry must be an http(s) origin such as http://127.0.0.1:4100',
    }),
  ),
);

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .default('false')
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = z.coerce.number().int().min(0).max(65535);

/** Every setting the service reads from the environment, with the defaults that work on a dev machine. */
export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    DATABASE_URL: z
      .url({ protocol: /^postgres(ql)?$/ })
      .default('postgres://postgres@127.0.0.1:5432/meetbot'),
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    REDIS_URL: z.url({ protocol: /^rediss?$/ }).default('redis://127.0.0.1:6379'),
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and - only')
      .default('meetbot'),
    API_HOST: z.string().min(1).default('127.0.0.1'),
    API_PORT: port.default(8056),
    PUBLIC_BASE_URL: z.url().optional(),
    ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
    DEFAULT_MAX_CONCURRENT_BOTS: z.coerce.number().int().min(0).max(10_000).default(3),
    DEFAULT_BOT_NAME: z.string().min(1).max(100).default('Meetbot'),
    /**
     * Seals bot accounts' browser sessions at rest (AES-256-GCM): base64 of 32 random bytes. Unset:
     * the service runs without signed-in bots (their routes answer 503).
     */
    BOT_ACCOUNT_KEY: z
      .string()
      .optional()
      .superRefine((value, context) => {
        if (value === undefined) return;
        try {
          sealingKeyFrom(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
        }
      }),
    /**
     * Keys bot accounts' sessions were sealed with before BOT_ACCOUNT_KEY (a rotation), comma-separated,
     * each base64 of 32 bytes: read, never used to seal; workers re-seal those sessions with the current key.
     */
    BOT_ACCOUNT_PREVIOUS_KEYS: commaList.superRefine((keys, context) => {
      keys.forEach((value, index) => {
        try {
          sealingKeyFrom(value);
        } catch (error) {
          context.addIssue({ code: 'custom', message: `key ${index + 1}: ${(error as Error).message}` });
        }
      });
    }),
    /** How many bots may use one bot account at once. */
    BOT_ACCOUNT_MAX_BOTS: z.coerce.number().int().min(1).max(100).default(1),
    /**
     * The share of a platform's pool (active accounts × BOT_ACCOUNT_MAX_BOTS) one user's live
     * signed-in bots may hold at once: at most max(1, floor(share × pool)). 1: no per-user share.
     */
    BOT_ACCOUNT_USER_SHARE: z.coerce.number().gt(0).max(1).default(0.5),
    /**
     * How many different users' meetings (each a different meeting) must have met a sign-in screen
     * with one bot account, with none of its bots getting in since, before it is marked expired.
     */
    BOT_ACCOUNT_EXPIRY_USERS: z.coerce.number().int().min(1).max(10).default(2),
    /**
     * An anonymous bot refused with `sign_in_required` is launched again at once as a signed-in bot
     * (as if asked with `authenticated`) when an active bot account of its platform exists.
     */
    BOT_ACCOUNT_FALLBACK: booleanFlag,
    EXTRA_MEETING_ORIGINS: originList,
    REQUEST_BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
    TRUST_PROXY: booleanFlag,
    /** When set, GET /metrics (API and workers) wants `Authorization: Bearer <token>`; open otherwise. */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** Where a worker serves /metrics (0: nowhere). */
    WORKER_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    WORKER_METRICS_PORT: port.default(9464),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),

    // Limits on what one caller can ask of the API.
    /** Page size of a listing (GET /meetings, deliveries, admin users) when `limit` is not given. */
    LIST_DEFAULT_LIMIT: z.coerce.number().int().min(1).max(100_000).default(100),
    /** The largest `limit` a listing accepts. */
    LIST_MAX_LIMIT: z.coerce.number().int().min(1).max(100_000).default(1000),
    /** A meeting's `data` as stored (JSON text), all members together. */
    MEETING_DATA_MAX_BYTES: z.coerce.number().int().min(1024).max(10_485_760).default(65_536),
    /** How long one search (GET /search) may take before it is given up with a 503. */
    SEARCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    /** Searches one user may have running at once, across every API replica; more answer 429. */
    SEARCH_CONCURRENCY_PER_USER: z.coerce.number().int().min(1).max(1000).default(2),
    /**
     * Searches one API process runs at once, all users together (each holds a pool connection); more
     * wait up to SEARCH_TIMEOUT_MS for a place. Unset: half of DATABASE_POOL_MAX (at least 1).
     */
    SEARCH_CONCURRENCY: z.coerce.number().int().min(1).max(200).optional(),
    /** Memory for built GET /transcripts and GET /meetings answers, per API process (0: none kept). */
    RESPONSE_CACHE_MB: z.coerce.number().min(0).max(65_536).default(64),
    /** Live transcript streams one user may have open at once, across every API replica. */
    LIVE_STREAMS_PER_USER: z.coerce.number().int().min(1).max(10_000).default(20),
    /** WebSockets (`/ws`) one API key may have open at once, across every API replica. */
    WS_SOCKETS_PER_KEY: z.coerce.number().int().min(1).max(10_000).default(10),
    /** Audio WebSockets (`/meetings/{id}/audio`) one user may have open at once, across every API replica. */
    AUDIO_SOCKETS_PER_USER: z.coerce.number().int().min(1).max(10_000).default(4),
    /** Meetings one WebSocket may be subscribed to at once. */
    WS_SUBSCRIPTIONS_PER_SOCKET: z.coerce.number().int().min(1).max(1000).default(50),
    /** The largest message a client may send on a WebSocket; a larger one closes it (1009). */
    WS_MESSAGE_MAX_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(16_384),
    /** How often the API pings each WebSocket; one that has not answered the last ping by then is dropped. */
    WS_PING_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    /** Requests one API key may make per minute, across every API replica (0: no limit). */
    RATE_LIMIT_PER_KEY_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(1200),
    /** Failed authentications (user or admin key) one client address may make per minute (0: no limit). */
    AUTH_FAILURES_PER_IP_PER_MINUTE: z.coerce.number().int().min(0).max(10_000_000).default(30),

    // Workers and the bots they run.
    /** Names this worker's containers; must be stable across restarts (re-adoption) and unique per replica on a host. */
    WORKER_ID: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . and - only')
      .default(
        hostname()
          .replace(/[^A-Za-z0-9_.-]/g, '-')
          .slice(0, 64) || 'worker',
      ),
    /** Bots one worker runs at once; unset: as many as the engine's machine holds (worker/bot-slots.ts). */
    BOT_SLOTS: z.coerce.number().int().min(1).max(1000).optional(),
    /**
     * Over 0: a worker starts its next bot only once the last one has settled in (in the call with its
     * video measures done, or 10 s in the lobby), or after this many seconds. 0 (the default): bots
     * start as soon as slots allow, so none arrives late (worker/bot-fleet.ts, docs/settings.md).
     */
    BOT_SETTLE_LIMIT_SECONDS: z.coerce.number().min(0).max(600).default(0),
    BOT_IMAGE: z.string().min(1).default('meetbot/bot:latest'),
    /** Docker network mode of bot containers: `host` here; a deployment may name a network. */
    BOT_NETWORK: z.string().min(1).default('host'),
    BOT_MEMORY_MB: z.coerce.number().int().min(128).max(65_536).default(1024),
    BOT_CPUS: z.coerce.number().min(0.1).max(64).default(1),
    BOT_PIDS_LIMIT: z.coerce.number().int().min(32).max(100_000).default(512),
    /** Redis as the bot container sees it (defaults to REDIS_URL, right for host networking). */
    BOT_REDIS_URL: z.url({ protocol: /^rediss?$/ }).optional(),
    /**
     * `on`: each bot gets a Redis ACL user of its own, reaching only its own streams and keys
     * (worker/runtime/bot-credentials.ts). `off`: every bot gets BOT_REDIS_URL as it is, for a Redis
     * that forbids ACL changes (the worker warns at start-up).
     */
    BOT_REDIS_ACL: z.enum(['on', 'off']).default('on'),
    /**
     * `refuse`: a worker whose Redis answers a client without a credential does not start (a bot could
     * connect as Redis's default user and reach everything). `allow`: it starts and says so, for a
     * deployment that knows what it runs on (the tests' shared Redis).
     */
    REDIS_OPEN_DEFAULT_USER: z.enum(['refuse', 'allow']).default('refuse'),
    /** Which Chromium the bot runs (see CHROMIUM_BUILDS): the headless-only build, or the full browser. */
    BOT_CHROMIUM: z.enum(['headless_shell', 'full']).default('headless_shell'),
    /**
     * Chromium's own sandbox in bot containers: `on` runs them under the seccomp profile that allows it
     * (worker/runtime/bot-seccomp-profile.ts); `off` (engines that can't allow user namespaces) runs
     * Chromium without it, under the engine's default profile.
     */
    BOT_CHROMIUM_SANDBOX: z.enum(['on', 'off']).default('on'),
    /**
     * The bots' video measures (bot/video/): others' cameras turned off in the meeting's own settings
     * and the page's video not rendered. `on`/`true` (the default: a transcribing bot never uses the
     * video, and it costs a bot 0.6 core under a real meeting's load, docs/benchmarks.md) or
     * `off`/`false`.
     */
    BOT_SKIP_VIDEO: z
      .enum(['on', 'off', 'true', 'false'])
      .default('on')
      .transform((value) => value === 'on' || value === 'true'),
    /**
     * How the bots' pages hear the meeting: `audio-context` (the default) renders the remote tracks
     * in an AudioContext; `track-processor` reads each as the page's receivers play it out, with no
     * second audio clock to skip on a host short of CPU (docs/benchmarks.md).
     */
    BOT_AUDIO_CAPTURE: z.enum(AUDIO_CAPTURE_MODES).default('audio-context'),
    BOT_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** After a stop, how long a bot may take to leave and flush before its container is stopped. */
    BOT_STOP_GRACE_SECONDS: z.coerce.number().int().min(1).max(600).default(30),
    BOT_ADMISSION_TIMEOUT_SECONDS: z.coerce.number().positive().optional(),
    BOT_NOBODY_JOINED_SECONDS: z.coerce.number().positive().optional(),
    BOT_ALONE_SECONDS: z.coerce.number().positive().optional(),
    BOT_SILENCE_SECONDS: z.coerce.number().positive().optional(),
    /** No longer than a segment's time may run (later segments are refused at ingest). */
    BOT_MAX_DURATION_SECONDS: z.coerce.number().positive().max(SEGMENT_TIME_MAX_SECONDS).optional(),
    TRANSCRIPTION_ENGINE: z.enum(TRANSCRIPTION_ENGINES).default('embedded'),
    /** The embedded recognizer's accuracy/CPU trade-off (docs/benchmarks.md "Accuracy on real speech"). */
    EMBEDDED_PROFILE: z
      .enum(EMBEDDED_PROFILES, { error: `must be one of ${EMBEDDED_PROFILES.join(', ')}` })
      .default(DEFAULT_EMBEDDED_PROFILE),
    OPENAI_BASE_URL: z.url().optional(),
    OPENAI_API_KEY: z.string().optional(),
    OPENAI_MODEL: z.string().min(1).optional(),
    WHISPERLIVE_URL: z.url({ protocol: /^wss?$/ }).optional(),
    /** How bots turn speak requests' text into speech: flite in the bot image, or an OpenAI-compatible endpoint. */
    SPEECH_ENGINE: z.enum(['flite', 'openai']).default('flite'),
    /** flite's voice when a request names none (slt, kal, kal16, awb, rms). */
    SPEECH_FLITE_VOICE: z.enum(FLITE_VOICES).default('slt'),
    /** Base URL of an OpenAI-compatible server for SPEECH_ENGINE=openai (it POSTs to {url}/audio/speech). */
    SPEECH_OPENAI_BASE_URL: z.url().optional(),
    SPEECH_OPENAI_API_KEY: z.string().optional(),
    SPEECH_OPENAI_MODEL: z.string().min(1).default('tts-1'),
    SPEECH_OPENAI_VOICE: z.string().min(1).default('alloy'),
    /** Speak requests one bot may have waiting or playing at once; more answer 429. */
    SPEAK_QUEUE_MAX: z.coerce.number().int().min(1).max(100).default(10),
    /** Speak, stop-speaking (and other bot action) requests per API key per minute; 0 turns the limit off. */
    BOT_ACTIONS_PER_KEY_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(60),
    /**
     * What one meeting's command stream may hold in Redis (bytes): images, clips and chat messages
     * past it are refused with 429 until the bot has had time to read the ones before.
     */
    COMMAND_STREAM_MAX_BYTES: z.coerce.number().int().min(2_097_152).max(1_073_741_824).default(8_388_608),
    /** The largest clip an `audio_url` may point at (bytes), fetched by the API under the webhook address rules. */
    SPEAK_AUDIO_URL_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(SPEAK_AUDIO_MAX_BYTES)
      .default(SPEAK_AUDIO_MAX_BYTES),
    /** One deadline for fetching a speak `audio_url` or a screen `image_url`, first byte to last (ms). */
    MEDIA_URL_FETCH_DEADLINE_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
    /** How far ahead POST /bots `join_at` may schedule a bot (days). */
    BOT_SCHEDULE_HORIZON_DAYS: z.coerce.number().int().min(1).max(366).default(30),
    /** A `join_at` at most this far in the past (clients' clock skew) is taken as now, not refused. */
    BOT_SCHEDULE_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(600).default(30),
    /** Scheduled bots (join_at, calendar feeds) one user may have waiting at once; more answer 429. */
    MAX_SCHEDULED_BOTS_PER_USER: z.coerce.number().int().min(0).max(100_000).default(500),
    /** Calendar feeds one user may register (POST /calendar-feeds). */
    CALENDAR_FEED_MAX_PER_USER: z.coerce.number().int().min(0).max(1000).default(10),
    /** How often each feed is fetched again (seconds). */
    CALENDAR_FEED_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
    /** How long before an event's start its bot joins (seconds). */
    CALENDAR_FEED_LEAD_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    /** One deadline for fetching a feed: redirects, headers and body together (ms). */
    CALENDAR_FEED_FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
    /** The largest feed read (bytes), however it is sent. */
    CALENDAR_FEED_MAX_BYTES: z.coerce.number().int().min(1024).max(104_857_600).default(5_242_880),
    /** Redirects followed when fetching a feed, each to an address checked again. */
    CALENDAR_FEED_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
    /** Occurrences of one feed read within the horizon (the earliest kept). */
    CALENDAR_FEED_MAX_OCCURRENCES: z.coerce.number().int().min(1).max(100_000).default(1000),
    /** Recurrence steps of one feed's expansion, all events together, before the poll is given up. */
    CALENDAR_FEED_MAX_EXPANSION_STEPS: z.coerce.number().int().min(1000).max(100_000_000).default(1_000_000),
    /** How long one feed's expansion may run in its own process before it is killed (ms). */
    CALENDAR_FEED_EXPANSION_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
    /** The heap of the process one feed is expanded in (MB). */
    CALENDAR_FEED_EXPANSION_MEMORY_MB: z.coerce.number().int().min(16).max(4096).default(256),
    /** Feeds one worker polls at once (each user's due feeds take their turns, one per user at a time). */
    CALENDAR_FEED_POLL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /** A meeting no worker has taken after this long is failed with a reason saying so. */
    REQUESTED_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
    RECONCILE_INTERVAL_SECONDS: z.coerce.number().min(1).max(3600).default(15),
    /** Workers warn when Redis's used memory passes this share of its maxmemory (read every RECONCILE_INTERVAL_SECONDS). */
    REDIS_MEMORY_WARN_RATIO: z.coerce.number().min(0.05).max(1).default(0.8),
    /** How often a worker records that it is alive (and its free slots, which steer launches). */
    WORKER_HEARTBEAT_SECONDS: z.coerce.number().min(0.5).max(300).default(5),
    /** A worker silent this long has lost its host: its meetings are relaunched on other hosts. */
    WORKER_LOST_AFTER_SECONDS: z.coerce.number().min(2).max(3600).default(30),
    /** How many times one meeting's bot is relaunched after lost hosts before the meeting is failed. */
    BOT_MAX_RELAUNCHES: z.coerce.number().int().min(0).max(100).default(2),
    /**
     * How many times a bot refused with a reason a retry can help (blocked_by_platform,
     * meeting_unreachable) is launched again before the meeting fails with that reason; 0: never.
     */
    BOT_RETRY_ATTEMPTS: z.coerce.number().int().min(0).max(10).default(2),
    /** The wait before the first retry; each further one waits twice the one before (at most 15 min). */
    BOT_RETRY_BACKOFF_SECONDS: z.coerce.number().min(1).max(3600).default(30),
    /** How this worker's Docker engine is named in heartbeats and metrics (default: the engine's own name). */
    DOCKER_HOST_NAME: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,200}$/, 'letters, digits, _ . : and - only')
      .optional(),

    // Recordings (the meeting's audio, kept when a bot is sent with recording_enabled).
    /** Whether a bot records when POST /bots does not say (`recording_enabled`). */
    RECORDING_ENABLED_DEFAULT: booleanFlag,
    /** Where recordings are kept: a local directory (one host) or an S3-compatible bucket (many hosts). */
    RECORDING_STORAGE: z.enum(['local', 's3']).default('local'),
    /** RECORDING_STORAGE=local: the directory (relative to the working directory, or absolute). */
    RECORDING_DIR: z.string().min(1).default('data/recordings'),
    /** Recordings older than this many days are deleted (0: kept until their meeting is deleted). */
    RECORDING_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(0),
    /** How long a media_url works after the answer that carried it (seconds; 1 minute to 7 days). */
    RECORDING_MEDIA_LINK_TTL_SECONDS: z.coerce.number().int().min(60).max(604_800).default(3600),
    /** RECORDING_STORAGE=s3: the bucket, and the endpoint of a store other than AWS (MinIO, Ceph, R2...). */
    S3_BUCKET: z.string().min(3).max(63).optional(),
    S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    /** Credentials; unset: the AWS SDK's own chain (environment, profile, instance role). */
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /** Path-style addressing (http://host/bucket/key), which most self-hosted stores want. */
    S3_FORCE_PATH_STYLE: booleanFlag,
    /** Prepended to every object key, so one bucket can serve several deployments. */
    S3_KEY_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9!_.*'()/-]{0,200}$/, "letters, digits and !_.*'()/- only")
      .default('recordings/'),

    // Webhooks.
    /** Allow endpoints on private, loopback and link-local addresses (refused by default). */
    WEBHOOK_ALLOW_PRIVATE_ADDRESSES: booleanFlag,
    /** Allow plain http:// endpoints (https only by default). */
    WEBHOOK_ALLOW_HTTP: booleanFlag,
    /** Ports webhook endpoints may use, comma-separated, or `any`. */
    WEBHOOK_ALLOWED_PORTS: z
      .string()
      .default('80,443,8080,8443')
      .transform((value, context): number[] | 'any' => {
        if (value.trim() === 'any') return 'any';
        const ports = value.split(',').map((item) => item.trim());
        if (ports.some((item) => !/^[0-9]{1,5}$/.test(item) || Number(item) < 1 || Number(item) > 65535)) {
          context.addIssue({
            code: 'custom',
            message: 'must be `any` or a comma-separated list of ports (1-65535)',
          });
          return z.NEVER;
        }
        return ports.map(Number);
      }),
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /** First retry delay; each further retry waits twice as long, up to WEBHOOK_RETRY_MAX_DELAY_MS. */
    WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(10_000),
    WEBHOOK_RETRY_MAX_DELAY_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
    /** A delivery still failing this long after its event is given up and marked failed. */
    WEBHOOK_RETRY_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(7 * 86_400)
      .default(86_400),
    /** Deliveries one worker sends at once (each meeting's still go out one at a time, in order). */
    WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(20),
  })
  .superRefine((config, context) => {
    if (config.BOT_ACCOUNT_PREVIOUS_KEYS.length > 0 && config.BOT_ACCOUNT_KEY === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['BOT_ACCOUNT_PREVIOUS_KEYS'],
        message: 'needs BOT_ACCOUNT_KEY, the key new sessions are sealed with',
      });
    }
    if (config.TRANSCRIPTION_ENGINE === 'openai' && !config.OPENAI_BASE_URL) {
      context.addIssue({
        code: 'custom',
        path: ['OPENAI_BASE_URL'],
        message: 'is required when TRANSCRIPTION_ENGINE=openai',
      });
    }
    if (config.SPEECH_ENGINE === 'openai' && !config.SPEECH_OPENAI_BASE_URL) {
      context.addIssue({
        code: 'custom',
        path: ['SPEECH_OPENAI_BASE_URL'],
        message: 'is required when SPEECH_ENGINE=openai',
      });
    }
    if (config.LIST_MAX_LIMIT < config.LIST_DEFAULT_LIMIT) {
      context.addIssue({
        code: 'custom',
        path: ['LIST_MAX_LIMIT'],
        message: 'must be at least LIST_DEFAULT_LIMIT',
      });
    }
    if (config.SEARCH_CONCURRENCY !== undefined && config.SEARCH_CONCURRENCY > config.DATABASE_POOL_MAX) {
      context.addIssue({
        code: 'custom',
        path: ['SEARCH_CONCURRENCY'],
        message: 'must be at most DATABASE_POOL_MAX (each search holds one of its connections)',
      });
    }
    if (config.WEBHOOK_RETRY_MAX_DELAY_MS < config.WEBHOOK_RETRY_BASE_MS) {
      context.addIssue({
        code: 'custom',
        path: ['WEBHOOK_RETRY_MAX_DELAY_MS'],
        message: 'must be at least WEBHOOK_RETRY_BASE_MS',
      });
    }
    if (config.WORKER_LOST_AFTER_SECONDS < config.WORKER_HEARTBEAT_SECONDS * 2) {
      context.addIssue({
        code: 'custom',
        path: ['WORKER_LOST_AFTER_SECONDS'],
        message: 'must be at least twice WORKER_HEARTBEAT_SECONDS (one late heartbeat must not lose a host)',
      });
    }
    if (config.RECORDING_STORAGE === 's3' && !config.S3_BUCKET) {
      context.addIssue({
        code: 'custom',
        path: ['S3_BUCKET'],
        message: 'is required when RECORDING_STORAGE=s3',
      });
    }
    if ((config.S3_ACCESS_KEY_ID === undefined) !== (config.S3_SECRET_ACCESS_KEY === undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['S3_SECRET_ACCESS_KEY'],
        message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together or not at all',
      });
    }
    if (config.TRANSCRIPTION_ENGINE === 'whisperlive' && !config.WHISPERLIVE_URL) {
      context.addIssue({
        code: 'custom',
        path: ['WHISPERLIVE_URL'],
        message: 'is required when TRANSCRIPTION_ENGINE=whisperlive',
      });
    }
  });

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Validates the whole environment at once so an operator sees every problem, not just the first. */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const cleaned = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = configSchema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`),
    );
  }
  return result.data;
}

/**
 * Loads `.env` (when present) into process.env without overriding variables already set,
 * then validates. On failure prints every problem and exits 1: a process must not start half-configured.
 */
export function loadConfigOrExit(envFile = '.env'): Config {
  if (existsSync(envFile)) process.loadEnvFile(envFile);
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
