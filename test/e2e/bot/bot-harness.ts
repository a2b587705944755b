import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { setPriority } from 'node:os';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { z } from 'zod';
import { redisBotCommands } from '../../../shared/bots/command-channel.js';
import type { BotConfigInput } from '../../../shared/contract/bot-config.js';
import type { BotCommand } from '../../../shared/contract/commands.js';
import {
  type LifecycleEvent,
  lifecycleEvent,
  type TranscriptSegmentMessage,
  transcriptSegmentMessage,
} from '../../../shared/contract/events.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botSessionStream } from '../../../shared/contract/streams.js';
import { HOST_CHROMIUM } from '../../support/chromium.js';
import { TEST_REDIS_URL } from '../../support/env.js';

const REPO_ROOT = new URL('../../../', import.meta.url).pathname;

export interface RunningBot {
  config: BotConfigInput & { sessionId: string; meetingId: number };
  /** The bot process (its Chromium and recognizer are its children). */
  pid: number | undefined;
  exited: Promise<number | null>;
  output(): string;
  signal(signal: NodeJS.Signals): void;
}

let nextMeetingId = 1000 + Math.floor(Math.random() * 100_000);

/**
 * Starts the real bot program (bot/main.ts) as a child process, the way its container runs it.
 * `niceness` (below 0 needs root, as tests run in CI) is set before the bot starts its Chromium,
 * which inherits it: a meeting whose clocks a test measures then gets the CPU before the test
 * files running beside it, as a container's own CPU share gives it in production.
 */
export function startBot(
  overrides: Partial<BotConfigInput> & Pick<BotConfigInput, 'platform' | 'meetingUrl'>,
  prefix: string,
  extraAllowedOrigin: string,
  { niceness }: { niceness?: number } = {},
): RunningBot {
  const config = {
    meetingId: nextMeetingId++,
    sessionId: randomUUID(),
    botName: 'Meetbot Notetaker',
    language: 'en',
    redisUrl: TEST_REDIS_URL,
    streamPrefix: prefix,
    streams: 'own' as const,
    extraAllowedOrigins: [extraAllowedOrigin],
    logLevel: 'info' as const,
    // Chromium as tests run it here (as root: no sandbox; containers run it sandboxed).
    browser: HOST_CHROMIUM,
    ...overrides,
  };
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bot/main.ts'], {
    cwd: REPO_ROOT,
    env: { ...process.env, BOT_CONFIG: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (niceness !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, niceness);
    } catch (error) {
      // Not root: the bot runs at the test's own priority.
      console.warn(`bot ${config.sessionId}: niceness ${niceness} not set (${(error as Error).message})`);
    }
  }
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    config,
    pid: child.pid,
    exited,
    output: () => output,
    signal: (signal) => child.kill(signal),
  };
}

function parseEntries<Schema extends z.ZodType>(
  entries: [string, string[]][],
  schema: Schema,
): z.infer<Schema>[] {
  return entries.map(([, fields]) => {
    const decoded = decodeStreamEntry(schema, fields);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  });
}

export async function botEvents(redis: Redis, prefix: string, sessionId: string): Promise<LifecycleEvent[]> {
  const entries = await redis.xrange(botSessionStream(prefix, sessionId, 'events'), '-', '+');
  return parseEntries(entries, lifecycleEvent).filter((event) => event.sessionId === sessionId);
}

export async function botSegments(
  redis: Redis,
  prefix: string,
  sessionId: string,
): Promise<TranscriptSegmentMessage[]> {
  const entries = await redis.xrange(botSessionStream(prefix, sessionId, 'segments'), '-', '+');
  return parseEntries(entries, transcriptSegmentMessage).filter((segment) => segment.sessionId === sessionId);
}

export async function sendCommand(
  redis: Redis,
  prefix: string,
  meetingId: number,
  command: BotCommand,
): Promise<void> {
  await redisBotCommands(redis, prefix).send(meetingId, command);
}

/** Waits for a lifecycle status to be published; fails with the bot's output tail. */
export async function waitForStatus(
  redis: Redis,
  prefix: string,
  bot: RunningBot,
  status: LifecycleEvent['status'],
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const events = await botEvents(redis, prefix, bot.config.sessionId);
    if (events.some((event) => event.status === status)) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`bot never reported ${status}; output:\n${bot.output().slice(-3000)}`);
}

/** The events as [status, reason?] pairs, with consecutive seq numbers checked. */
export function statusTrail(events: LifecycleEvent[]): string[] {
  events.forEach((event, index) => {
    if (event.seq !== index) throw new Error(`event ${index} has seq ${event.seq}`);
  });
  return events.map((event) => ('reason' in event ? `${event.status}:${event.reason}` : event.status));
}

/** The bot exited 0 having joined, waited, been let in and seen the meeting end: nothing else. */
export async function expectEndedWithMeeting(redis: Redis, prefix: string, bot: RunningBot): Promise<void> {
  expect(await bot.exited, bot.output().slice(-3000)).toBe(0);
  expect(statusTrail(await botEvents(redis, prefix, bot.config.sessionId))).toEqual([
    'joining',
    'awaiting_admission',
    'active',
    'completed:meeting_ended',
  ]);
}
