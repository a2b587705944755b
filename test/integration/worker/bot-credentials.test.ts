import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Outbox } from '../../../bot/outbox.js';
import { insertUser } from '../../../shared/accounts/users-store.js';
import { findBotSession, listBotSessions } from '../../../shared/bots/session-registry.js';
import { botAudioStream, botAudioWantedKey } from '../../../shared/contract/audio-stream.js';
import { LAUNCH_QUEUE } from '../../../shared/contract/jobs.js';
import { streamFields } from '../../../shared/contract/stream-codec.js';
import {
  botAliveKey,
  botCommandsStream,
  botEventsStream,
  botSessionStream,
  botSessionsKey,
} from '../../../shared/contract/streams.js';
import { type Config, parseConfig } from '../../../shared/infra/config.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { meetingChangesChannel } from '../../../shared/meetings/changes.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import { insertMeeting } from '../../../shared/meetings/store.js';
import {
  type BotSessionDeps,
  closeBotSession,
  ENDED_STREAMS_KEPT_MS,
  LAUNCH_IN_PROGRESS_MS,
  openBotSession,
  restoreLostCredentials,
  sweepBotSessions,
} from '../../../worker/fleet/bot-sessions.js';
import { INGEST_GROUP } from '../../../worker/ingest/ingester.js';
import {
  botUserPrefix,
  checkAclAllowed,
  createBotCredentials,
} from '../../../worker/runtime/bot-credentials.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('credentials-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let database: TestDatabase;
let redis: Redis;
let userId: number;
const prefix = uniquePrefix('creds');
const bots: Redis[] = [];

function depsFor(
  workerId = 'worker-a',
  env: Record<string, string> = {},
): BotSessionDeps & { config: Config } {
  const config = parseConfig({
    QUEUE_PREFIX: prefix,
    REDIS_URL: TEST_REDIS_URL,
    WORKER_ID: workerId,
    ...env,
  });
  return { config, db: database.db, redis, log, credentials: createBotCredentials(redis, config) };
}

/** Connects as a bot does (bot/main.ts), with the URL its launch gave it. */
function connectAsBot(url: string): Redis {
  const bot = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  bot.on('error', () => undefined);
  bots.push(bot);
  return bot;
}

let meetings = 0;
async function launchedMeeting(): Promise<{ meetingId: number; sessionId: string }> {
  meetings += 1;
  const nativeMeetingId = `cre-dsxx-${String.fromCharCode(97 + (meetings % 26)).repeat(3)}`;
  const meeting = await insertMeeting(database.db, {
    userId,
    platform: 'google_meet',
    nativeMeetingId,
    meetingUrl: `https://meet.google.com/${nativeMeetingId}`,
    passcode: null,
    botName: 'Bot',
    language: null,
    task: 'transcribe',
  });
  const sessionId = randomUUID();
  await claimLaunch(database.db, meeting.id, { sessionId, workerId: 'worker-a' });
  return { meetingId: meeting.id, sessionId };
}

async function usersOfDeployment(): Promise<string[]> {
  const users = (await redis.call('ACL', 'USERS')) as string[];
  return users.filter((user) => user.startsWith(`${prefix}:bot:`));
}

beforeAll(async () => {
  database = await createTestDatabase();
  redis = createTestRedis();
  userId = (await insertUser(database.db, { email: 'creds@example.com', maxConcurrentBots: 1000 })).id;
});

afterEach(() => {
  for (const bot of bots.splice(0)) bot.disconnect();
});

afterAll(async () => {
  await deleteKeys(redis, prefix);
  expect(await usersOfDeployment()).toEqual([]);
  redis.disconnect();
  await database.drop();
});

describe("a bot's own Redis credential", () => {
  it('reaches its own streams, alive key and command stream, and nothing else', async () => {
    const deps = depsFor();
    const own = await launchedMeeting();
    const other = await launchedMeeting();
    const url = await openBotSession(deps, own);
    expect(new URL(url).username).toBe(encodeURIComponent(`${botUserPrefix(deps.config)}${own.sessionId}`));
    await redis.xadd(botCommandsStream(prefix, own.meetingId), '*', 'data', '{}');
    await redis.xadd(botCommandsStream(prefix, other.meetingId), '*', 'data', '{}');
    await redis.set(botAliveKey(prefix, other.sessionId), 'x');
    const bot = connectAsBot(url);

    // What the bot does (bot/outbox.ts, bot/liveness.ts, bot/commands.ts, bot/audio/audio-out.ts).
    for (const kind of ['events', 'segments', 'health', 'recording'] as const) {
      await bot.xadd(botSessionStream(prefix, own.sessionId, kind), '*', ...streamFields({ ok: kind }));
    }
    await redis.set(botAudioWantedKey(prefix, own.sessionId), '1', 'PX', 10_000);
    expect(await bot.exists(botAudioWantedKey(prefix, own.sessionId))).toBe(1);
    await bot.xadd(botAudioStream(prefix, own.sessionId), 'MAXLEN', '~', 50, '*', 'h', '{}');
    await bot.set(botAliveKey(prefix, own.sessionId), '{}', 'PX', 8000);
    await bot.del(botAliveKey(prefix, own.sessionId));
    const commands = await bot.xread('STREAMS', botCommandsStream(prefix, own.meetingId), '0');
    expect(commands?.[0]?.[1]).toHaveLength(1);

    // What it must not do.
    const refused = async (attempt: Promise<unknown>) => expect(attempt).rejects.toThrow(/NOPERM/);
    await refused(bot.xadd(botSessionStream(prefix, other.sessionId, 'segments'), '*', 'data', '{}'));
    await refused(bot.xadd(botEventsStream(prefix), '*', 'data', '{}'));
    await refused(bot.xadd(botCommandsStream(prefix, own.meetingId), '*', 'data', '{}'));
    await refused(bot.xread('STREAMS', botCommandsStream(prefix, other.meetingId), '0'));
    await refused(bot.xrange(botSessionStream(prefix, other.sessionId, 'events'), '-', '+'));
    await refused(bot.get(botAliveKey(prefix, other.sessionId)));
    await refused(bot.exists(botAudioWantedKey(prefix, other.sessionId)));
    await refused(bot.set(botAliveKey(prefix, other.sessionId), 'forged'));
    await refused(bot.hgetall(botSessionsKey(prefix)));
    await refused(bot.lpush(`${prefix}:${LAUNCH_QUEUE}:wait`, 'x'));
    await refused(bot.publish(meetingChangesChannel(prefix, 0), 'x'));
    await refused(bot.call('CONFIG', 'GET', '*'));
    await refused(bot.call('KEYS', '*'));
    await refused(bot.call('FLUSHALL'));
    await refused(bot.call('ACL', 'LIST'));
    await refused(bot.call('EVAL', 'return 1', '0'));
    // SUBSCRIBE puts the connection in subscriber mode: its own connection.
    await refused(connectAsBot(url).subscribe(meetingChangesChannel(prefix, 0)));
    const queue = new Queue(LAUNCH_QUEUE, { connection: connectAsBot(url), prefix });
    await expect(queue.add('launch', { meetingId: other.meetingId })).rejects.toThrow(/NOPERM/);
    await queue.close().catch(() => undefined);

    expect(await redis.get(botAliveKey(prefix, other.sessionId))).toBe('x');
    expect(await redis.exists(botSessionStream(prefix, other.sessionId, 'segments'))).toBe(0);
    expect(await redis.xlen(botCommandsStream(prefix, own.meetingId))).toBe(1);
    await closeBotSession(deps, own.sessionId);
  });

  it('is gone once revoked: its connections are closed and it can no longer log in', async () => {
    const deps = depsFor();
    const own = await launchedMeeting();
    const url = await openBotSession(deps, own);
    const bot = connectAsBot(url);
    await bot.xadd(botSessionStream(prefix, own.sessionId, 'events'), '*', 'data', '{}');
    await closeBotSession(deps, own.sessionId);
    await expect.poll(() => bot.status, { timeout: 5000 }).toBe('end');
    const again = connectAsBot(url);
    await expect(again.ping()).rejects.toThrow();
    expect(await usersOfDeployment()).not.toContain(`${prefix}:bot:${own.sessionId}`);
    expect((await findBotSession(redis, prefix, own.sessionId))?.endedAt).toBeTypeOf('number');
  });

  it('comes back with the same password when Redis lost it (restart without an ACL file)', async () => {
    const deps = depsFor();
    const own = await launchedMeeting();
    const url = await openBotSession(deps, own);
    await redis.call('ACL', 'DELUSER', `${prefix}:bot:${own.sessionId}`);
    // Past the launch's grace, as the reconciler's sweep sees it.
    const entry = (await findBotSession(redis, prefix, own.sessionId))!;
    await redis.hset(
      botSessionsKey(prefix),
      own.sessionId,
      JSON.stringify({ ...entry, launchedAt: Date.now() - LAUNCH_IN_PROGRESS_MS - 1000 }),
    );
    const report = await sweepBotSessions(deps, new Set([own.sessionId]));
    expect(report.credentialsRestored).toBe(1);
    const bot = connectAsBot(url);
    await bot.xadd(botSessionStream(prefix, own.sessionId, 'events'), '*', 'data', '{}');
    await closeBotSession(deps, own.sessionId);
  });
});

describe('a credential Redis lost (a restart without an ACL file)', () => {
  it('is restored by the worker while the bot waits: what it sent meanwhile goes through, none lost', async () => {
    const deps = depsFor();
    const own = await launchedMeeting();
    const url = await openBotSession(deps, own);
    // As bot/main.ts connects: never give up on a command.
    const bot = new Redis(url, { maxRetriesPerRequest: null });
    bot.on('error', () => undefined);
    bots.push(bot);
    const outbox = new Outbox(bot, { ...own, streamPrefix: prefix }, log);
    await outbox.event({ status: 'joining' });
    await redis.call('ACL', 'DELUSER', `${prefix}:bot:${own.sessionId}`);
    // Sent while the client is logged out: ioredis queues them, then fails them when its login is
    // refused (WRONGPASS); the outbox tries again until the worker has restored the user.
    await expect.poll(() => bot.status, { timeout: 5000 }).not.toBe('ready');
    void outbox.event({ status: 'awaiting_admission' });
    void outbox.event({ status: 'active' });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await restoreLostCredentials(deps)).toBe(1);
    await outbox.drain();
    expect(outbox.failedAppends()).toBe(0);
    const events = await redis.xrange(botSessionStream(prefix, own.sessionId, 'events'), '-', '+');
    expect(events.map(([, fields]) => JSON.parse(fields[1]!).status)).toEqual([
      'joining',
      'awaiting_admission',
      'active',
    ]);
    expect(await restoreLostCredentials(deps)).toBe(0);
    await closeBotSession(deps, own.sessionId);
  });
});

describe('the sweep (reconciler) revokes the credentials of bots that are gone', () => {
  async function backdate(sessionId: string, field: 'launchedAt' | 'endedAt', ms: number): Promise<void> {
    const entry = (await findBotSession(redis, prefix, sessionId))!;
    await redis.hset(
      botSessionsKey(prefix),
      sessionId,
      JSON.stringify({ ...entry, [field]: Date.now() - ms }),
    );
  }

  it('its own bot whose container is gone (crash, removed by hand); a launch in progress is left alone', async () => {
    const deps = depsFor('worker-a');
    const gone = await launchedMeeting();
    const running = await launchedMeeting();
    const starting = await launchedMeeting();
    for (const bot of [gone, running, starting]) await openBotSession(deps, bot);
    await backdate(gone.sessionId, 'launchedAt', LAUNCH_IN_PROGRESS_MS + 1000);
    await backdate(running.sessionId, 'launchedAt', LAUNCH_IN_PROGRESS_MS + 1000);

    const report = await sweepBotSessions(deps, new Set([running.sessionId]));
    expect(report.credentialsRevoked).toBe(1);
    const users = await usersOfDeployment();
    expect(users).not.toContain(`${prefix}:bot:${gone.sessionId}`);
    expect(users).toEqual(
      expect.arrayContaining([`${prefix}:bot:${running.sessionId}`, `${prefix}:bot:${starting.sessionId}`]),
    );
    expect((await findBotSession(redis, prefix, gone.sessionId))?.endedAt).toBeTypeOf('number');
    for (const bot of [running, starting]) await closeBotSession(deps, bot.sessionId);
  });

  it("a lost host's bot once its meeting was relaunched and it stopped beating; not while it is alive", async () => {
    const lostWorker = depsFor('worker-lost');
    const sweeper = depsFor('worker-b');
    const lost = await launchedMeeting();
    // Launched moments ago (a host may die any time after a launch): no grace for other workers' bots.
    await openBotSession(lostWorker, lost);
    // Still its meeting's bot: kept, whatever the sweeping worker's engine holds.
    expect((await sweepBotSessions(sweeper, new Set())).credentialsRevoked).toBe(0);
    // Relaunched elsewhere (host recovery), but the old bot still beats: kept.
    await database.db('meetings').where({ id: lost.meetingId }).update({ launch_session_id: randomUUID() });
    await redis.set(botAliveKey(prefix, lost.sessionId), '{}', 'PX', 8000);
    expect((await sweepBotSessions(sweeper, new Set())).credentialsRevoked).toBe(0);
    await redis.del(botAliveKey(prefix, lost.sessionId));
    expect((await sweepBotSessions(sweeper, new Set())).credentialsRevoked).toBe(1);
    expect(await usersOfDeployment()).not.toContain(`${prefix}:bot:${lost.sessionId}`);
  });

  it('a credential with no session behind it, and an ended session once its streams were all ingested', async () => {
    const deps = depsFor();
    const orphan = randomUUID();
    const { meetingId } = await launchedMeeting();
    await createBotCredentials(redis, deps.config).issue({ meetingId, sessionId: orphan });
    const ended = await launchedMeeting();
    await openBotSession(deps, ended);
    const stream = botSessionStream(prefix, ended.sessionId, 'segments');
    await redis.xadd(stream, '*', 'data', '{}');
    await redis.xgroup('CREATE', stream, INGEST_GROUP, '0');
    await closeBotSession(deps, ended.sessionId);
    await backdate(ended.sessionId, 'endedAt', ENDED_STREAMS_KEPT_MS + 1000);

    let report = await sweepBotSessions(deps, new Set());
    expect(report.credentialsRevoked).toBe(1);
    expect(await usersOfDeployment()).not.toContain(`${prefix}:bot:${orphan}`);
    // Not yet read by the ingesters: kept.
    expect(report.sessionsDropped).toBe(0);
    await redis.xreadgroup('GROUP', INGEST_GROUP, 'w', 'STREAMS', stream, '>');
    const [[id]] = (await redis.xrange(stream, '-', '+')) as [[string, string[]]];
    await redis.xack(stream, INGEST_GROUP, id);
    report = await sweepBotSessions(deps, new Set());
    expect(report.sessionsDropped).toBe(1);
    expect((await listBotSessions(redis, prefix)).has(ended.sessionId)).toBe(false);
    expect(await redis.exists(stream)).toBe(0);
  });
});

describe('BOT_REDIS_ACL', () => {
  it('off: bots get the deployment URL and no user is created', async () => {
    const deps = depsFor('worker-a', { BOT_REDIS_ACL: 'off', BOT_REDIS_URL: 'redis://127.0.0.1:6379/0' });
    const before = await usersOfDeployment();
    const own = await launchedMeeting();
    expect(await openBotSession(deps, own)).toBe('redis://127.0.0.1:6379/0');
    expect(await usersOfDeployment()).toEqual(before);
    await closeBotSession(deps, own.sessionId);
  });

  it('on: the worker refuses to start, naming the setting, when its Redis user may not change ACLs', async () => {
    const limitedName = `${prefix}:limited`;
    await redis.call('ACL', 'SETUSER', limitedName, 'reset', 'on', '>limited', '~*', '+@all', '-@admin');
    const limited = new Redis(TEST_REDIS_URL, { username: limitedName, password: 'limited' });
    try {
      const { config } = depsFor();
      await expect(checkAclAllowed(limited, config)).rejects.toThrow(/BOT_REDIS_ACL=off/);
      await expect(checkAclAllowed(redis, config)).resolves.toBeUndefined();
    } finally {
      limited.disconnect();
      await redis.call('ACL', 'DELUSER', limitedName);
    }
  });
});
