import { readFile } from 'node:fs/promises';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { botAudioStream, botAudioWantedKey } from '../shared/contract/audio-stream.js';
import {
  BOT_CONFIG_ENV,
  BOT_CONFIG_FILE_ENV,
  type BotConfig,
  parseBotConfig,
  redisUrlWithPassword,
} from '../shared/contract/bot-config.js';
import type { StorageState } from '../shared/contract/storage-state.js';
import { BOT_STREAM_LAYOUTS, botCommandsStream } from '../shared/contract/streams.js';
import { waitAtMost } from '../shared/infra/async.js';
import { createLogger, type Logger } from '../shared/infra/logger.js';
import { RedisAudioOut } from './audio/audio-out.js';
import { CommandReader } from './commands.js';
import { EndSignal, type Outcome } from './end-signal.js';
import { createEngine } from './engines/index.js';
import { Liveness } from './liveness.js';
import { oomKillCount } from './memory-limit.js';
import { Outbox } from './outbox.js';
import { readBotSecrets, withSecretsFromFile } from './secrets.js';
import { BotSession } from './session.js';
import { signedInOutcome, takeStorageState } from './signed-in.js';

const FINAL_EVENT_LIMIT_MS = 30_000;

/** The signed-in bot's session file is missing or broken: its config, not a crash. */
class InvalidSessionError extends Error {}

/** Enough of a broken config to tell the workers why this bot won't run. */
const reportableConfig = z.object({
  meetingId: z.number().int().positive(),
  sessionId: z.string().min(1),
  redisUrl: z.url({ protocol: /^rediss?$/ }),
  streamPrefix: z.string().min(1),
  streams: z.enum(BOT_STREAM_LAYOUTS).default('shared'),
  secretsPath: z.string().optional(),
});

function connect(url: string, log: Logger): Redis {
  // Never give up on a command: a Redis restart must not lose a lifecycle event or a segment.
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  redis.on('error', (error: Error) => log.warn({ err: error }, 'redis connection error'));
  return redis;
}

async function reportInvalidConfig(raw: string | undefined, problem: string, log: Logger): Promise<void> {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? '');
  } catch {
    return;
  }
  const identity = reportableConfig.safeParse(json);
  if (!identity.success) return;
  // The Redis password is in the secrets file (when that is readable at all).
  const { secretsPath } = identity.data;
  const secrets = secretsPath ? await readBotSecrets(secretsPath).catch(() => undefined) : undefined;
  const redisUrl = redisUrlWithPassword(identity.data.redisUrl, secrets?.redisPassword);
  const redis = connect(redisUrl, log);
  const outbox = new Outbox(redis, identity.data, log);
  await waitAtMost(
    outbox.event({ status: 'failed', reason: 'invalid_config', detail: problem.slice(0, 2000) }),
    FINAL_EVENT_LIMIT_MS,
  );
  redis.disconnect();
}

async function runBot(config: BotConfig): Promise<number> {
  const log = createLogger('bot', config.logLevel).child({
    meetingId: config.meetingId,
    sessionId: config.sessionId,
    platform: config.platform,
  });
  const redis = connect(config.redisUrl, log);
  const outbox = new Outbox(redis, config, log);
  const oomKillsAtStart = oomKillCount();
  let session: BotSession | null = null;
  const liveness = new Liveness(
    redis,
    config,
    log,
    () => session?.lagState() ?? { lagSeconds: 0, lagging: false, settling: true },
  );
  liveness.start();
  const end = new EndSignal();
  let outcome: Outcome;
  let reader: CommandReader | null = null;
  const onSignal = (signal: string) => {
    log.info({ signal }, 'asked to stop');
    end.end({ status: 'completed', reason: 'stopped', detail: signal });
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('unhandledRejection', (error) => {
    log.error({ err: error }, 'unhandled rejection');
    end.end({ status: 'failed', reason: 'crashed', detail: String(error).slice(0, 2000) });
  });
  try {
    let storageState: StorageState | undefined;
    if (config.signedIn) {
      try {
        storageState = await takeStorageState(config.signedIn.storageStatePath);
        log.info("signed in: the browser opens with the bot account's session");
      } catch (error) {
        throw new InvalidSessionError((error as Error).message);
      }
    }
    const running = new BotSession({
      config,
      outbox,
      chatSink: outbox,
      participantSink: outbox,
      log,
      createEngine,
      end,
      storageState,
      // The outbox's connection: the audio flows only while someone listens, and never more than
      // MAX_APPENDS_IN_FLIGHT appends (about 50 KiB) queue ahead of an event. Two connections a bot
      // (this one, and the command reader's, which blocks) are what Redis's maxclients is sized by.
      audioOut: new RedisAudioOut(
        redis,
        {
          stream: botAudioStream(config.streamPrefix, config.sessionId),
          wanted: botAudioWantedKey(config.streamPrefix, config.sessionId),
        },
        log.child({ component: 'audio-out' }),
      ),
    });
    session = running;
    reader = new CommandReader(
      connect(config.redisUrl, log),
      botCommandsStream(config.streamPrefix, config.meetingId),
      (command) => running.handleCommand(command),
      log,
    );
    reader.start();
    outcome = await running.run();
  } catch (error) {
    if (error instanceof InvalidSessionError) {
      log.error({ problem: error.message }, 'no usable bot account session');
      outcome = { status: 'failed', reason: 'invalid_config', detail: error.message.slice(0, 2000) };
    } else {
      log.error({ err: error }, 'bot crashed');
      outcome = { status: 'failed', reason: 'crashed', detail: (error as Error).message?.slice(0, 2000) };
    }
  }
  await reader?.stop();
  outcome = blameMemoryLimit(outcome, oomKillsAtStart);
  if (config.signedIn) outcome = signedInOutcome(outcome);
  await waitAtMost(outbox.event(outcome), FINAL_EVENT_LIMIT_MS);
  await waitAtMost(outbox.drain(), FINAL_EVENT_LIMIT_MS);
  await waitAtMost(liveness.stop(), FINAL_EVENT_LIMIT_MS);
  await redis.quit().catch(() => redis.disconnect());
  log.info({ outcome }, 'bot finished');
  return outcome.status === 'completed' ? 0 : 1;
}

/** A crash while the kernel was killing processes for the memory limit is the limit's doing. */
function blameMemoryLimit(outcome: Outcome, oomKillsAtStart: number): Outcome {
  if (outcome.status !== 'failed' || outcome.reason !== 'crashed') return outcome;
  const kills = oomKillCount() - oomKillsAtStart;
  if (kills <= 0) return outcome;
  return {
    status: 'failed',
    reason: 'out_of_memory',
    detail:
      `the container hit its memory limit (${kills} process(es) killed by the kernel): ${outcome.detail ?? ''}`.slice(
        0,
        2000,
      ),
  };
}

/** The config from the environment, or from the file it names (a Kubernetes pod's Secret). */
async function readRawConfig(): Promise<string | undefined> {
  const path = process.env[BOT_CONFIG_FILE_ENV];
  if (!path) return process.env[BOT_CONFIG_ENV];
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`${BOT_CONFIG_FILE_ENV} names ${path}, which can't be read: ${(error as Error).message}`);
  }
}

async function main(): Promise<void> {
  let raw: string | undefined;
  let config: BotConfig;
  try {
    raw = await readRawConfig();
    config = await withSecretsFromFile(parseBotConfig(raw));
  } catch (error) {
    const log = createLogger('bot', 'info');
    log.fatal({ err: error }, 'invalid bot config');
    await reportInvalidConfig(raw, (error as Error).message, log);
    process.exit(2);
  }
  process.exit(await runBot(config));
}

await main();
