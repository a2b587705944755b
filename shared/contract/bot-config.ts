import { z } from 'zod';
import { TRANSCRIPTION_TASKS } from './meeting-status.js';
import { PLATFORMS } from './platforms.js';
import { BOT_STREAM_LAYOUTS } from './streams.js';

/**
 * How the bot's page hears the meeting (bot/audio/capture.ts): `audio-context` renders every remote
 * track in a 16 kHz AudioContext; `track-processor` reads each as its receiver plays it out
 * (bot/audio/track-mixer-page-script.ts).
 */
export const AUDIO_CAPTURE_MODES = ['audio-context', 'track-processor'] as const;
export type AudioCaptureMode = (typeof AUDIO_CAPTURE_MODES)[number];

/** The environment variable the worker puts the bot's JSON config in. */
export const BOT_CONFIG_ENV = 'BOT_CONFIG';
/**
 * Or, where the environment is shown to more than the engine's own users (a Kubernetes pod's spec):
 * the environment variable naming the file that holds the config (worker/runtime/kubernetes/).
 */
export const BOT_CONFIG_FILE_ENV = 'BOT_CONFIG_FILE';

/** Where a signed-in bot finds its account's session: the bot user's home in the image (docker/bot.Dockerfile). */
export const BOT_STORAGE_STATE_DIR = '/home/bot';
export const BOT_STORAGE_STATE_FILE = 'bot-account-session.json';
/** The bot user's uid and gid in the image (docker/bot.Dockerfile), who owns the session file. */
export const BOT_USER_ID = 10001;
/** Where the bot finds its secrets (botSecretsSchema), beside the session file. */
export const BOT_SECRETS_FILE = 'bot-secrets.json';

/**
 * The embedded recognizer's named trade-offs between accuracy and CPU (their flags and figures:
 * bot/engines/embedded/recognizer-profiles.ts, docs/benchmarks.md "Accuracy on real speech").
 */
export const EMBEDDED_PROFILES = ['accurate', 'balanced', 'fast'] as const;
export type EmbeddedProfile = (typeof EMBEDDED_PROFILES)[number];
export const DEFAULT_EMBEDDED_PROFILE: EmbeddedProfile = 'balanced';

export const embeddedEngineConfig = z.object({
  engine: z.literal('embedded'),
  profile: z
    .enum(EMBEDDED_PROFILES, { error: `must be one of ${EMBEDDED_PROFILES.join(', ')}` })
    .default(DEFAULT_EMBEDDED_PROFILE),
  /** pocketsphinx_continuous arguments that replace the profile's flags when given. */
  extraArgs: z.array(z.string()).default([]),
});

export const openAiEngineConfig = z.object({
  engine: z.literal('openai'),
  /** Base URL of an OpenAI-compatible server, e.g. https://api.openai.com/v1. */
  baseUrl: z.url(),
  apiKey: z.string().optional(),
  model: z.string().min(1).default('whisper-1'),
  /** Length of the audio window re-sent while an utterance is still open. */
  windowSeconds: z.number().positive().max(30).default(5),
  requestTimeoutMs: z.number().int().positive().default(30_000),
  maxRetries: z.number().int().min(0).max(10).default(3),
});

export const whisperLiveEngineConfig = z.object({
  engine: z.literal('whisperlive'),
  /** WebSocket URL of a WhisperLive-compatible server, e.g. ws://127.0.0.1:9090. */
  url: z.url({ protocol: /^wss?$/ }),
  model: z.string().min(1).default('small'),
  useVad: z.boolean().default(true),
});

export const transcriptionConfig = z.discriminatedUnion('engine', [
  embeddedEngineConfig,
  openAiEngineConfig,
  whisperLiveEngineConfig,
]);
export type TranscriptionConfig = z.infer<typeof transcriptionConfig>;

/** The flite voices built into Debian's flite binary (`flite -lv`). */
export const FLITE_VOICES = ['slt', 'kal', 'kal16', 'awb', 'rms'] as const;

/**
 * How the bot turns text into speech: Debian's flite inside the image (offline, the default), or an
 * OpenAI-compatible `/v1/audio/speech` endpoint.
 */
export const speechConfig = z.discriminatedUnion('engine', [
  z.object({
    engine: z.literal('flite'),
    /** The voice when a request names none (or names one flite lacks). */
    defaultVoice: z.enum(FLITE_VOICES).default('slt'),
  }),
  z.object({
    engine: z.literal('openai'),
    /** Base URL of an OpenAI-compatible server, e.g. https://api.openai.com/v1. */
    baseUrl: z.url(),
    apiKey: z.string().optional(),
    model: z.string().min(1).default('tts-1'),
    defaultVoice: z.string().min(1).default('alloy'),
    requestTimeoutMs: z.number().int().positive().default(30_000),
  }),
]);
export type SpeechConfig = z.infer<typeof speechConfig>;

/** When the bot leaves on its own. Each ends the meeting with its own reason. */
export const automaticLeaveConfig = z.object({
  /** Waiting room: give up (failed, admission_timeout) after this long without being admitted. */
  admissionTimeoutSeconds: z.number().positive().default(300),
  /** Admitted but no other participant ever appeared (completed, nobody_joined). */
  nobodyJoinedSeconds: z.number().positive().default(120),
  /** Everyone else left and stayed away this long (completed, left_alone). */
  aloneSeconds: z.number().positive().default(30),
  /** No speech heard for this long (completed, silence). */
  silenceSeconds: z.number().positive().default(900),
  /** Hard cap on time in the call (completed, max_duration). */
  maxDurationSeconds: z
    .number()
    .positive()
    .default(4 * 3600),
});
export type AutomaticLeaveConfig = z.infer<typeof automaticLeaveConfig>;

/**
 * The Chromium builds in the bot image: Debian's headless-only build (less than half the memory of
 * the full browser in a call, measured in docs/benchmarks.md) and the full browser, kept for pages
 * that treat the two differently.
 */
export const CHROMIUM_BUILDS = {
  headless_shell: '/usr/lib/chromium/chromium-headless-shell',
  full: '/usr/lib/chromium/chromium',
} as const;

export const botConfigSchema = z.object({
  meetingId: z.number().int().positive(),
  /** One id per launch (container), so events from an old launch can be told apart. */
  sessionId: z.string().min(1),
  platform: z.enum(PLATFORMS),
  meetingUrl: z.url(),
  botName: z.string().min(1).max(100),
  /** null: detect the language where the engine can. */
  language: z.string().min(2).nullable(),
  task: z.enum(TRANSCRIPTION_TASKS).default('transcribe'),
  redisUrl: z.url({ protocol: /^rediss?$/ }),
  /** Prefix of every Redis key the bot uses (the deployment's QUEUE_PREFIX). */
  streamPrefix: z.string().min(1),
  /**
   * `own`: the bot appends to streams of its own (`<prefix>:bot:<session>:…`), which its worker
   * registered. `shared`: the streams every bot shared before; the default, because a worker older
   * than per-bot streams (a rolling upgrade) sends no such field and reads only the shared ones.
   */
  streams: z.enum(BOT_STREAM_LAYOUTS).default('shared'),
  transcription: transcriptionConfig.default({
    engine: 'embedded',
    profile: DEFAULT_EMBEDDED_PROFILE,
    extraArgs: [],
  }),
  automaticLeave: automaticLeaveConfig.default(automaticLeaveConfig.parse({})),
  /** Speech synthesis for speak commands. */
  speech: speechConfig.default({ engine: 'flite', defaultVoice: 'slt' }),
  /** Record the meeting's audio (POST /bots `recording_enabled`), sent as chunks on the recording stream. */
  recording: z.object({ enabled: z.boolean() }).default({ enabled: false }),
  /**
   * The wall time a segment `start` of 0 stands for, when the meeting's transcript began before this
   * bot (a relaunch after a lost host): the new bot's segments carry on the same time line.
   * Absent: 0 is the start of this bot's own capture.
   */
  transcriptOrigin: z.iso.datetime().optional(),
  /** Origins (besides the platform's own hosts) the bot may navigate to, e.g. the simulator's. */
  extraAllowedOrigins: z.array(z.url()).default([]),
  browser: z
    .object({
      executablePath: z.string().default(CHROMIUM_BUILDS.headless_shell),
      headless: z.boolean().default(true),
      /**
       * Chromium's own sandbox (renderers in their own namespaces under its seccomp filter). Needs a
       * container whose seccomp profile allows it, which the worker applies when it sends true
       * (worker/runtime/bot-seccomp-profile.ts), and a non-root user. Absent: a worker from before
       * the sandbox, which starts containers under the engine's default profile, where it can't run.
       */
      sandbox: z.boolean().default(false),
    })
    .default({ executablePath: CHROMIUM_BUILDS.headless_shell, headless: true, sandbox: false }),
  /**
   * The bot's video measures (bot/video/measures.ts: the platform's incoming-video setting turned
   * off, the page's video elements not rendered): `skip` applies them (BOT_SKIP_VIDEO). Absent: on, as BOT_SKIP_VIDEO is by default.
   */
  video: z.object({ skip: z.boolean() }).default({ skip: true }),
  /**
   * How the page hears the meeting (BOT_AUDIO_CAPTURE, bot/audio/capture.ts): `audio-context` renders
   * the remote tracks in an AudioContext; `track-processor` reads each as its receiver plays it out.
   * Absent: `audio-context`.
   */
  audioCapture: z.enum(AUDIO_CAPTURE_MODES).default('audio-context'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * A signed-in bot: the browser session of its bot account waits in this file (0600, the bot's own;
   * the worker puts it into the container before it starts, never in the environment). The bot reads
   * and deletes it, and opens its browser context with it; a sign-in screen then ends the bot as
   * `sign_in_expired`, not `sign_in_required`. Absent: an anonymous guest.
   */
  signedIn: z.object({ storageStatePath: z.string().startsWith('/') }).optional(),
  /**
   * The config's secrets wait in this file (botSecretsSchema; 0600, the bot's own, put into the
   * container before it starts), not in the environment, where `docker inspect` shows them and every
   * process the bot starts inherits them: the bot reads it at start (withBotSecrets). Absent: a worker
   * from before, whose config carries its secrets itself.
   */
  secretsPath: z.string().startsWith('/').optional(),
});
export type BotConfig = z.infer<typeof botConfigSchema>;
export type BotConfigInput = z.input<typeof botConfigSchema>;

/**
 * The secrets of a bot's config, kept out of its environment (`secretsPath`): the password of its
 * Redis URL, the transcription engine's and the speech engine's API keys.
 */
export const botSecretsSchema = z.object({
  redisPassword: z.string().min(1).optional(),
  transcriptionApiKey: z.string().min(1).optional(),
  speechApiKey: z.string().min(1).optional(),
});
export type BotSecrets = z.infer<typeof botSecretsSchema>;

/**
 * The worker's side: the config with its secrets taken out (and `secretsPath` naming where they will
 * be, when there are any), and the secrets.
 */
export function splitBotSecrets(
  config: BotConfigInput,
  secretsPath: string,
): { config: BotConfigInput; secrets: BotSecrets } {
  const secrets: BotSecrets = {};
  const redisUrl = new URL(config.redisUrl);
  if (redisUrl.password) {
    secrets.redisPassword = redisUrl.password;
    redisUrl.password = '';
  }
  let transcription = config.transcription;
  if (transcription?.engine === 'openai' && transcription.apiKey) {
    const { apiKey, ...rest } = transcription;
    secrets.transcriptionApiKey = apiKey;
    transcription = rest;
  }
  let speech = config.speech;
  if (speech?.engine === 'openai' && speech.apiKey) {
    const { apiKey, ...rest } = speech;
    secrets.speechApiKey = apiKey;
    speech = rest;
  }
  const some = Object.keys(secrets).length > 0;
  return {
    config: {
      ...config,
      redisUrl: secrets.redisPassword ? redisUrl.toString() : config.redisUrl,
      ...(transcription && { transcription }),
      ...(speech && { speech }),
      ...(some && { secretsPath }),
    },
    secrets,
  };
}

/** The bot's side: the config as the worker meant it, its secrets put back. */
export function withBotSecrets(config: BotConfig, secrets: BotSecrets): BotConfig {
  const { secretsPath: _read, ...rest } = config;
  return {
    ...rest,
    redisUrl: redisUrlWithPassword(config.redisUrl, secrets.redisPassword),
    transcription:
      config.transcription.engine === 'openai' && secrets.transcriptionApiKey
        ? { ...config.transcription, apiKey: secrets.transcriptionApiKey }
        : config.transcription,
    speech:
      config.speech.engine === 'openai' && secrets.speechApiKey
        ? { ...config.speech, apiKey: secrets.speechApiKey }
        : config.speech,
  };
}

/** A Redis URL with the password from the secrets file put back (as it was, percent-encoded). */
export function redisUrlWithPassword(url: string, password: string | undefined): string {
  if (!password) return url;
  const withPassword = new URL(url);
  withPassword.password = password;
  return withPassword.toString();
}

/** The secrets file's text parsed; throws an Error naming what is wrong (never the secrets). */
export function parseBotSecrets(raw: string, path: string): BotSecrets {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`the bot's secrets file ${path} is not JSON`);
  }
  const parsed = botSecretsSchema.safeParse(json);
  if (!parsed.success) throw new Error(`the bot's secrets file ${path} is not the secrets of a bot config`);
  return parsed.data;
}

/** Parses the config from the environment; throws an Error listing every problem. */
export function parseBotConfig(raw: string | undefined): BotConfig {
  if (!raw) throw new Error(`${BOT_CONFIG_ENV} is not set`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`${BOT_CONFIG_ENV} is not valid JSON`);
  }
  const result = botConfigSchema.safeParse(json);
  if (!result.success) {
    const problems = result.error.issues.map(
      (issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`,
    );
    throw new Error(`${BOT_CONFIG_ENV} is invalid:\n  - ${problems.join('\n  - ')}`);
  }
  return result.data;
}
