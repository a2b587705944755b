import {
  BOT_CONFIG_ENV,
  BOT_SECRETS_FILE,
  BOT_STORAGE_STATE_DIR,
  BOT_STORAGE_STATE_FILE,
  BOT_USER_ID,
  type BotConfigInput,
  CHROMIUM_BUILDS,
  type SpeechConfig,
  splitBotSecrets,
  type TranscriptionConfig,
} from '../../shared/contract/bot-config.js';
import { normalizeMeetingUrl } from '../../shared/contract/platforms.js';
import type { StorageState } from '../../shared/contract/storage-state.js';
import type { Config } from '../../shared/infra/config.js';
import type { MeetingRecord } from '../../shared/meetings/store.js';
import { type BotContainerSpec, Labels } from './bot-runtime.js';
import { botSeccompProfile } from './bot-seccomp-profile.js';

/** What a signed-in bot takes into its container: its account's name and opened session. */
export interface LaunchAccount {
  id: number;
  displayName: string;
  storageState: StorageState;
}

/** Built once: every bot container of a worker runs under the same profile. */
const BOT_SECCOMP_PROFILE_JSON = JSON.stringify(botSeccompProfile());

export function transcriptionConfigFrom(config: Config): TranscriptionConfig {
  switch (config.TRANSCRIPTION_ENGINE) {
    case 'openai':
      return {
        engine: 'openai',
        baseUrl: config.OPENAI_BASE_URL!,
        ...(config.OPENAI_API_KEY && { apiKey: config.OPENAI_API_KEY }),
        model: config.OPENAI_MODEL ?? 'whisper-1',
        windowSeconds: 5,
        requestTimeoutMs: 30_000,
        maxRetries: 3,
      };
    case 'whisperlive':
      return { engine: 'whisperlive', url: config.WHISPERLIVE_URL!, model: 'small', useVad: true };
    default:
      return { engine: 'embedded', profile: config.EMBEDDED_PROFILE, extraArgs: [] };
  }
}

export function speechConfigFrom(config: Config): SpeechConfig {
  if (config.SPEECH_ENGINE === 'openai') {
    return {
      engine: 'openai',
      baseUrl: config.SPEECH_OPENAI_BASE_URL!,
      ...(config.SPEECH_OPENAI_API_KEY && { apiKey: config.SPEECH_OPENAI_API_KEY }),
      model: config.SPEECH_OPENAI_MODEL,
      defaultVoice: config.SPEECH_OPENAI_VOICE,
      requestTimeoutMs: 30_000,
    };
  }
  return { engine: 'flite', defaultVoice: config.SPEECH_FLITE_VOICE };
}

/** The Redis URL bots get when they have no credential of their own (BOT_REDIS_ACL=off). */
export function sharedBotRedisUrl(config: Pick<Config, 'BOT_REDIS_URL' | 'REDIS_URL'>): string {
  return config.BOT_REDIS_URL ?? config.REDIS_URL;
}

/**
 * The bot's config, exactly as the contract in shared/contract/bot-config.ts expects it. `redisUrl`
 * carries the bot's own credential (worker/runtime/bot-credentials.ts).
 */
export function botConfigFor(
  config: Config,
  meeting: MeetingRecord,
  sessionId: string,
  transcriptOrigin: Date | null = null,
  redisUrl: string = sharedBotRedisUrl(config),
  account: Pick<LaunchAccount, 'displayName'> | null = null,
): BotConfigInput {
  const automaticLeave: Record<string, number> = {};
  if (config.BOT_ADMISSION_TIMEOUT_SECONDS)
    automaticLeave.admissionTimeoutSeconds = config.BOT_ADMISSION_TIMEOUT_SECONDS;
  if (config.BOT_NOBODY_JOINED_SECONDS) automaticLeave.nobodyJoinedSeconds = config.BOT_NOBODY_JOINED_SECONDS;
  if (config.BOT_ALONE_SECONDS) automaticLeave.aloneSeconds = config.BOT_ALONE_SECONDS;
  if (config.BOT_SILENCE_SECONDS) automaticLeave.silenceSeconds = config.BOT_SILENCE_SECONDS;
  if (config.BOT_MAX_DURATION_SECONDS) automaticLeave.maxDurationSeconds = config.BOT_MAX_DURATION_SECONDS;
  return {
    meetingId: meeting.id,
    sessionId,
    platform: meeting.platform,
    // Stored normalised since issue 48; a row stored before may still carry a caller's `authuser`.
    meetingUrl: normalizeMeetingUrl(meeting.platform, meeting.meetingUrl),
    // A signed-in bot joins as its account: the page shows the account's name, not one it types.
    botName: account?.displayName ?? meeting.botName,
    language: meeting.language,
    task: meeting.task,
    redisUrl,
    streamPrefix: config.QUEUE_PREFIX,
    streams: 'own',
    transcription: transcriptionConfigFrom(config),
    speech: speechConfigFrom(config),
    automaticLeave,
    recording: { enabled: meeting.recordingEnabled },
    ...(transcriptOrigin && { transcriptOrigin: transcriptOrigin.toISOString() }),
    extraAllowedOrigins: config.EXTRA_MEETING_ORIGINS,
    browser: {
      executablePath: CHROMIUM_BUILDS[config.BOT_CHROMIUM],
      headless: true,
      sandbox: config.BOT_CHROMIUM_SANDBOX === 'on',
    },
    video: { skip: config.BOT_SKIP_VIDEO },
    audioCapture: config.BOT_AUDIO_CAPTURE,
    logLevel: config.BOT_LOG_LEVEL,
    ...(account && { signedIn: { storageStatePath: `${BOT_STORAGE_STATE_DIR}/${BOT_STORAGE_STATE_FILE}` } }),
  };
}

/**
 * What tells this deployment's containers from another's on a shared Docker engine: its queue
 * prefix, and its Redis database when that is not 0. Two deployments may share a prefix on one Redis
 * in different databases (their keys never meet); their bots' names and labels must not meet either,
 * or one's reconciler would take the other's containers for its own. Database 0 keeps the bare
 * prefix, so containers launched before this rule are still found.
 */
export function deploymentName(config: Pick<Config, 'QUEUE_PREFIX' | 'REDIS_URL'>): string {
  const database = redisDatabaseOf(config.REDIS_URL);
  return database === 0 ? config.QUEUE_PREFIX : `${config.QUEUE_PREFIX}-db${database}`;
}

/**
 * The database a Redis URL selects, read as ioredis reads it (so it is the number the pub/sub channel
 * names, from the client): the path (`redis://host:6379/4`), else a `db` query parameter, else 0.
 */
export function redisDatabaseOf(url: string): number {
  const parsed = new URL(url);
  const selected =
    parsed.pathname.length > 1 ? parsed.pathname.slice(1) : (parsed.searchParams.get('db') ?? '0');
  return /^\d+$/.test(selected) ? Number(selected) : 0;
}

/**
 * One name per launch: a relaunched bot may land on the engine that still holds the old one's
 * container, and a join retry (at once, for a sign-in fallback) may start while the refused bot's
 * container is still leaving.
 */
export function containerNameFor(
  config: Config,
  meeting: Pick<MeetingRecord, 'id' | 'relaunchCount' | 'joinRetries'>,
): string {
  const base = `meetbot-${deploymentName(config)}-meeting-${meeting.id}`;
  const relaunch = meeting.relaunchCount > 0 ? `-relaunch-${meeting.relaunchCount}` : '';
  const retry = meeting.joinRetries > 0 ? `-retry-${meeting.joinRetries}` : '';
  return `${base}${relaunch}${retry}`;
}

/** The labels every bot container of this deployment carries (the reconciler finds them by these). */
export function deploymentLabels(config: Config): Record<string, string> {
  return { [Labels.deployment]: deploymentName(config) };
}

/**
 * The container of one launch. Its environment holds the bot's config and nothing else, and no
 * secret: `docker inspect` shows the environment to anyone with the engine's socket, and every
 * process the bot starts (Chromium, the recognizer) inherits it. The config's secrets (the password
 * of the bot's own Redis credential, an external transcription or speech engine's API key) are a file
 * written into the container before it starts, 0600 and the bot user's, which the bot reads at start
 * (shared/contract/bot-config.ts, `secretsPath`). A signed-in bot's session is such a file too, which
 * the bot deletes once read.
 */
export function botContainerSpec(
  config: Config,
  meeting: MeetingRecord,
  sessionId: string,
  transcriptOrigin: Date | null = null,
  redisUrl: string = sharedBotRedisUrl(config),
  account: LaunchAccount | null = null,
): BotContainerSpec {
  const { config: botConfig, secrets } = splitBotSecrets(
    botConfigFor(config, meeting, sessionId, transcriptOrigin, redisUrl, account),
    `${BOT_STORAGE_STATE_DIR}/${BOT_SECRETS_FILE}`,
  );
  const botFile = (name: string, content: unknown) => ({
    directory: BOT_STORAGE_STATE_DIR,
    name,
    content: Buffer.from(JSON.stringify(content), 'utf8'),
    mode: 0o600,
    uid: BOT_USER_ID,
    gid: BOT_USER_ID,
  });
  return {
    name: containerNameFor(config, meeting),
    image: config.BOT_IMAGE,
    env: { [BOT_CONFIG_ENV]: JSON.stringify(botConfig) },
    files: [
      ...(botConfig.secretsPath ? [botFile(BOT_SECRETS_FILE, secrets)] : []),
      ...(account ? [botFile(BOT_STORAGE_STATE_FILE, account.storageState)] : []),
    ],
    labels: {
      ...deploymentLabels(config),
      [Labels.meetingId]: String(meeting.id),
      [Labels.userId]: String(meeting.userId),
      [Labels.sessionId]: sessionId,
      [Labels.workerId]: config.WORKER_ID,
    },
    memoryBytes: config.BOT_MEMORY_MB * 1024 * 1024,
    nanoCpus: Math.round(config.BOT_CPUS * 1e9),
    pidsLimit: config.BOT_PIDS_LIMIT,
    networkMode: config.BOT_NETWORK,
    seccompProfile: config.BOT_CHROMIUM_SANDBOX === 'on' ? BOT_SECCOMP_PROFILE_JSON : null,
  };
}
