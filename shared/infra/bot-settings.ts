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
import { booleanFlag, commaList } from './config-fields.js';
import { sealingKeyFrom } from './sealing.js';

// The settings of the bots, part of configSchema (config.ts): the bot accounts they may sign in
// with, and the workers that run them: their containers, recognizers, voices and actions, scheduled
// bots and calendar feeds, and the workers' own loops. Each key's place in configSchema is kept.

/** Bot accounts for signed-in bots: their sealing keys, how many bots share one, when one expires. */
export const botAccountSettings = {
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
};

/** Workers and the bots they run. */
export const workerSettings = {
  /** Names this worker's containers; must be stable across restarts (re-adoption) and unique per replica on a host. */
  WORKER_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, _ . and - only')
    .default(
      hostname()
        .replace(/[^A-Za-z0-9_.-]/g, '-')
        .slice(0, 64) || 'worker',
    ),
  /** Bots one worker runs at once; unset: as many as the engine's machine holds, or 100 on Kubernetes (worker/fleet/bot-slots.ts). */
  BOT_SLOTS: z.coerce.number().int().min(1).max(1000).optional(),
  /**
   * Over 0: a worker starts its next bot only once the last one has settled in (in the call with its
   * video measures done, or 10 s in the lobby), or after this many seconds. 0 (the default): bots
   * start as soon as slots allow, so none arrives late (worker/fleet/bot-fleet.ts, docs/settings.md).
   */
  BOT_SETTLE_LIMIT_SECONDS: z.coerce.number().min(0).max(600).default(0),
  BOT_IMAGE: z.string().min(1).default('meetbot/bot:latest'),
  /**
   * Where bots run: `docker` (the engine of DOCKER_HOST or the local socket) or `kubernetes` (one pod
   * per bot in KUBERNETES_NAMESPACE, through the cluster the worker runs in or KUBECONFIG names;
   * worker/runtime/kubernetes/, docs/deployment.md).
   */
  BOT_RUNTIME: z.enum(['docker', 'kubernetes']).default('docker'),
  /** The namespace of the bot pods; unset: the worker pod's own (its service account's), else `default`. */
  KUBERNETES_NAMESPACE: z
    .string()
    .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'a Kubernetes namespace name')
    .optional(),
  /**
   * The seccomp profile of bot pods when BOT_CHROMIUM_SANDBOX=on: a Localhost profile's path under the
   * kubelet's seccomp directory (the chart's DaemonSet installs `meetbot/bot-seccomp.json`), or
   * `RuntimeDefault` for a cluster that allows no node profiles (docs/deployment.md).
   */
  BOT_POD_SECCOMP_PROFILE: z
    .string()
    .regex(
      /^(RuntimeDefault|[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*\.json)$/,
      'RuntimeDefault or a path like meetbot/bot-seccomp.json',
    )
    .default('meetbot/bot-seccomp.json'),
  /** A bot pod no node can take for this long is deleted and its meeting failed (`bot_unschedulable`). */
  BOT_POD_UNSCHEDULABLE_SECONDS: z.coerce.number().min(1).max(3600).default(120),
  /** A bot pod placed on a node but not running after this long (its image still pulling, say) is deleted and its launch failed. */
  BOT_POD_START_TIMEOUT_SECONDS: z.coerce.number().min(5).max(3600).default(300),
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
};
