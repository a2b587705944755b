import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnRedis, startOwnRedis } from '../../support/redis-server.js';
import { type Stack, startStack, type WorkerProcess } from '../../support/stack.js';
import {
  auditFaultMeeting,
  endFaultMeeting,
  expectNoContainers,
  ONE_SENTENCE,
  startFaultMeeting,
  waitForSpoken,
} from './meeting.js';

let redisServer: OwnRedis;
let stack: Stack;
let worker: WorkerProcess;
let redis: Redis;

beforeAll(async () => {
  redisServer = await startOwnRedis();
  stack = await startStack({ redisUrl: redisServer.url, workerEnv: { BOT_LOG_LEVEL: 'debug' } });
  worker = stack.startWorker('redis-restart-w1');
  redis = new Redis(redisServer.url, { maxRetriesPerRequest: null });
  redis.on('error', () => {});
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
  await redisServer?.destroy();
});

/** Stops Redis, leaves it down while a sentence is spoken, starts it again; returns how long it was down. */
async function restartRedis(signal: 'SIGTERM' | 'SIGKILL', downMs: number): Promise<number> {
  const stoppedAt = Date.now();
  await redisServer.stop(signal);
  await new Promise((resolve) => setTimeout(resolve, downMs));
  await redisServer.start();
  return Date.now() - stoppedAt;
}

describe('Redis restarted mid-meeting (AOF, a shutdown and a crash)', () => {
  it('the bot, the worker and the API carry on: no segment lost or doubled, the meeting ends completed, no container left', async () => {
    const meeting = await startFaultMeeting(stack);
    await waitForSpoken(stack, meeting.nativeId, 0);

    // Down while Bob speaks: his segment is published into a Redis that isn't there.
    const firstOutageMs = await restartRedis('SIGTERM', 6000);
    await waitForSpoken(stack, meeting.nativeId, 2);
    // A crash this time: what Redis acknowledged is in its append-only file.
    const secondOutageMs = await restartRedis('SIGKILL', 6000);

    // The API still serves the running meeting, and the worker still takes launches from the queue.
    const status = await stack.api.request('GET', `/meetings/${meeting.meetingId}`, { key: stack.user.key });
    expect(status.body.status).toBe('active');
    const later = await startFaultMeeting(stack, ONE_SENTENCE);

    await endFaultMeeting(stack, meeting);
    await endFaultMeeting(stack, later);
    const figures = await auditFaultMeeting(stack, redis, meeting);
    const laterFigures = await auditFaultMeeting(stack, redis, later);
    await expectNoContainers(stack);
    console.log(
      'redis restart figures',
      JSON.stringify({ firstOutageMs, secondOutageMs, meeting: figures, later: laterFigures }),
    );
    expect(worker.child.exitCode).toBeNull();
  });
});
