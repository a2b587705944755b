import { randomBytes } from 'node:crypto';
import type { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markBotSessionEnded, registerBotSession } from '../../../shared/bots/session-registry.js';
import { speechQueueKey } from '../../../shared/bots/speech-queue.js';
import { botCommand, SCREEN_IMAGE_MAX_BYTES } from '../../../shared/contract/commands.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandStreamsKey, botCommandsStream } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { BotFleet } from '../../../worker/fleet/bot-fleet.js';
import { sweepCommandStreams } from '../../../worker/sweeps/command-stream-sweep.js';
import type { WorkerDeps } from '../../../worker/worker-deps.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { recordingRuntime, runControlWorker, testWorkerDeps, until } from '../../support/launch-workers.js';
import { advanceMeeting } from '../../support/meetings.js';
import { createTestRedis } from '../../support/redis.js';

/**
 * Issue 48: one key flooding a meeting with 1 MiB images must not grow Redis without bound, the
 * meeting's command stream must be gone once the meeting ended, and the user's own stop must get
 * through however the flood spent the key's budgets.
 */

const BUDGET = 4 * 1024 * 1024;
const ACTIONS_PER_MINUTE = 40;
const REQUESTS_PER_MINUTE = 90;

let api: TestApi;
let workerRedis: Redis;
let workerDeps: WorkerDeps;
let control: Worker;

beforeAll(async () => {
  api = await startTestApi({
    rateLimited: true,
    env: {
      COMMAND_STREAM_MAX_BYTES: String(BUDGET),
      BOT_ACTIONS_PER_KEY_PER_MINUTE: String(ACTIONS_PER_MINUTE),
      RATE_LIMIT_PER_KEY_PER_MINUTE: String(REQUESTS_PER_MINUTE),
      BOT_STOP_GRACE_SECONDS: '1',
    },
  });
  // A worker's stop path as worker/create-worker.ts builds it; its runtime runs no containers.
  workerRedis = createTestRedis();
  workerDeps = testWorkerDeps({
    config: api.config,
    db: api.database.db,
    redis: workerRedis,
    queues: api.queues,
    runtime: recordingRuntime('budget-worker', () => undefined),
    log: createLogger('command-stream-budget', 'silent'),
    fleet: new BotFleet(1),
  });
  control = runControlWorker(workerDeps, workerRedis.duplicate());
});

afterAll(async () => {
  await control?.close();
  workerRedis?.disconnect();
  await api?.close();
});

/** An active meeting of `owner` with a live bot session registered for it, as a launch leaves it. */
async function activeMeetingWithBot(owner: TestUser, nativeId: string) {
  const created = await api.request('POST', '/bots', { key: owner.key, json: googleMeetBot(nativeId) });
  expect(created.status).toBe(201);
  const meetingId: number = created.body.id;
  await advanceMeeting(api.database.db, meetingId, 'active');
  const sessionId = `budget-session-${meetingId}`;
  await registerBotSession(api.redis, api.prefix, sessionId, {
    meetingId,
    workerId: 'another-worker',
    launchedAt: Date.now(),
  });
  return { meetingId, sessionId, path: `/bots/google_meet/${nativeId}` };
}

async function commandTypesOf(meetingId: number): Promise<string[]> {
  const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
  return entries.map(([, fields]) => {
    const decoded = decodeStreamEntry(botCommand, fields);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value.type;
  });
}

/** Redis's own count of what the key holds (SAMPLES 0: every node, not an estimate); 0 when gone. */
async function memoryOf(key: string): Promise<number> {
  return Number((await api.redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0')) ?? 0);
}

async function usedMemory(): Promise<number> {
  const info = await api.redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1]);
}

function image(): string {
  // Random bytes: nothing in Redis or on the way compresses them.
  return randomBytes(SCREEN_IMAGE_MAX_BYTES).toString('base64');
}

const FULL =
  /^Too much waiting for this bot: its commands may hold at most 4194304 bytes, and the ones of the last 10 s fill them; retry in 10 s$/;

describe('a meeting flooded with 1 MiB images', () => {
  it('keeps its command stream within COMMAND_STREAM_MAX_BYTES, makes room as the bot reads, and frees it once the meeting ended', async () => {
    const owner = await api.createUser({ maxConcurrentBots: 3 });
    const { meetingId, sessionId, path } = await activeMeetingWithBot(owner, 'flo-odim-age');
    const stream = botCommandsStream(api.prefix, meetingId);
    const redisBefore = await usedMemory();

    const statuses: number[] = [];
    let peak = 0;
    for (let index = 0; index < 20; index += 1) {
      const answer = await api.request('POST', `${path}/screen`, {
        key: owner.key,
        json: { image_base64: image() },
      });
      statuses.push(answer.status);
      if (answer.status === 429) {
        expect(answer.body).toEqual({ error: expect.stringMatching(FULL) });
        expect(answer.headers.get('retry-after')).toBe('10');
      } else {
        expect(answer.status).toBe(202);
      }
      peak = Math.max(peak, await memoryOf(stream));
    }
    const accepted = statuses.filter((status) => status === 202).length;
    // Two images of 1.4 MB (as base64) fit in 4 MiB; the rest waited for the bot within 10 s.
    expect(accepted).toBeGreaterThanOrEqual(2);
    expect(statuses.slice(0, accepted).every((status) => status === 202)).toBe(true);
    expect(statuses.slice(accepted).every((status) => status === 429)).toBe(true);
    expect(peak).toBeLessThanOrEqual(BUDGET);
    // A refused image sent nothing.
    expect(await commandTypesOf(meetingId)).toEqual(Array(accepted).fill('screen.show'));
    const redisAfterFlood = await usedMemory();

    // Once the bot has had the grace to read them, the old images make room for a new one.
    await new Promise((resolve) => setTimeout(resolve, 10_500));
    const later = await api.request('POST', `${path}/screen`, {
      key: owner.key,
      json: { image_base64: image() },
    });
    expect(later.status).toBe(202);
    expect(await memoryOf(stream)).toBeLessThanOrEqual(BUDGET);
    expect(await commandTypesOf(meetingId)).toEqual(['screen.show']);

    // The stop gets through a full stream: the leave is appended whatever the budget says.
    const again = await api.request('POST', `${path}/screen`, {
      key: owner.key,
      json: { image_base64: image() },
    });
    expect(again.status).toBe(202);
    const full = await api.request('POST', `${path}/screen`, {
      key: owner.key,
      json: { image_base64: image() },
    });
    expect(full.status).toBe(429);
    const stopped = await api.request('DELETE', path, { key: owner.key });
    expect(stopped.status).toBe(202);
    await until(async () => ((await commandTypesOf(meetingId)).includes('leave') ? true : undefined));

    // Ended, but its bot is still reading the leave: the stream stays.
    await sweepCommandStreams(workerDeps);
    expect(await api.redis.exists(stream)).toBe(1);
    // The bot is gone (its container removed, its session closed): the stream goes, with the index entry.
    await markBotSessionEnded(api.redis, api.prefix, sessionId);
    expect(await sweepCommandStreams(workerDeps)).toBeGreaterThanOrEqual(1);
    expect(await api.redis.exists(stream, speechQueueKey(api.prefix, meetingId))).toBe(0);
    expect(await memoryOf(stream)).toBe(0);
    expect(await api.redis.zscore(botCommandStreamsKey(api.prefix), String(meetingId))).toBeNull();
    const redisAfterEnd = await usedMemory();
    console.info(
      `command stream flood: ${accepted} of 20 images accepted, stream peak ${peak} bytes (budget ${BUDGET}); ` +
        `Redis used_memory ${redisBefore} before, ${redisAfterFlood} after the flood, ${redisAfterEnd} after the meeting ended`,
    );
  }, 60_000);
});

describe('stopping a bot', () => {
  it("gets through when the key spent its bot action budget and its request rate, and the bot's leave reaches its stream", async () => {
    const owner = await api.createUser({ maxConcurrentBots: 3 });
    const { meetingId, path } = await activeMeetingWithBot(owner, 'sto-pthr-ugh');
    // The bot action budget, spent.
    let refusedAction: Awaited<ReturnType<TestApi['request']>> | undefined;
    for (let index = 0; index <= ACTIONS_PER_MINUTE && !refusedAction; index += 1) {
      const sent = await api.request('POST', `${path}/chat`, {
        key: owner.key,
        json: { text: `hi ${index}` },
      });
      if (sent.status === 429) refusedAction = sent;
      else expect(sent.status).toBe(202);
    }
    expect(refusedAction?.body.error).toMatch(/^Rate limit exceeded: at most 40 bot actions per minute/);
    // Then the request rate, spent.
    let refusedRequest: Awaited<ReturnType<TestApi['request']>> | undefined;
    for (let index = 0; index <= REQUESTS_PER_MINUTE && !refusedRequest; index += 1) {
      const read = await api.request('GET', '/bots/status', { key: owner.key });
      if (read.status === 429) refusedRequest = read;
      else expect(read.status).toBe(200);
    }
    expect(refusedRequest?.body.error).toMatch(/^Rate limit exceeded: at most 90 requests per minute/);

    const stopped = await api.request('DELETE', path, { key: owner.key });
    expect(stopped.status).toBe(202);
    expect(stopped.body).toMatchObject({ id: meetingId, status: 'completed' });
    await until(async () => ((await commandTypesOf(meetingId)).includes('leave') ? true : undefined));
    // The key is still over its rate for everything else: the stop was let through, not the window reset.
    expect((await api.request('GET', '/bots/status', { key: owner.key })).status).toBe(429);
    // A wrong key is still refused (401), and counts against the address.
    expect((await api.request('DELETE', path, { key: 'not-a-key' })).status).toBe(401);
  }, 60_000);
});
