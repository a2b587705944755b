import { existsSync } from 'node:fs';
import { z } from 'zod';
import { botAccountSettings, workerSettings } from './bot-settings.js';
import { booleanFlag, originList, port } from './config-fields.js';

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
    ...botAccountSettings,
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

    // Workers and the bots they run (bot-settings.ts).
    ...workerSettings,

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
