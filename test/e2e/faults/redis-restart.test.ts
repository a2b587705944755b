import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OwnRedis, startOwnRedis } from '../../support/redis-server.js';
import { type ApiProcess, type Stack, startStack, type WorkerProcess } from '../../support/stack.js';
import {
  auditFaultMeeting,
  endFaultMeeting,
  expectNoContainers,
  ONE_SENTENCE,
  type RunningMeeting,
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

/**
 * Stops Redis, leaves it down while a sentence is spoken, starts it again; meanwhile reads the
 * meeting and its transcript through an API process wired as in production (rate limits counted in
 * Redis, which fall back to the process). Returns how long Redis was down and the answers' statuses.
 */
async function restartRedis(
  signal: 'SIGTERM' | 'SIGKILL',
  downMs: number,
  api: ApiProcess,
  meeting: RunningMeeting,
): Promise<{ downMs: number; answersWhileDown: Array<number | string> }> {
  const stoppedAt = Date.now();
  await redisServer.stop(signal);
  const answersWhileDown: Array<number | string> = [];
  while (Date.now() - stoppedAt < downMs) {
    for (const path of [`/meetings/${meeting.meetingId}`, `/transcripts/google_meet/${meeting.nativeId}`]) {
      const answer = await fetch(`${api.baseUrl}${path}`, {
        headers: { 'X-API-Key': stack.user.key },
        signal: AbortSignal.timeout(5000),
      }).then(
        (response) => response.status,
        (error: Error) => error.name,
      );
      answersWhileDown.push(answer);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await redisServer.start();
  return { downMs: Date.now() - stoppedAt, answersWhileDown };
}

describe('Redis restarted mid-meeting (AOF, a shutdown and a crash)', () => {
  it('the bot, the worker and the API carry on: no segment lost or doubled, the meeting ends completed, no container left', async () => {
    const api = await stack.startApiProcess({ env: { RATE_LIMIT_PER_KEY_PER_MINUTE: '100000' } });
    const meeting = await startFaultMeeting(stack);
    await waitForSpoken(stack, meeting.nativeId, 0);

    // Down while Bob speaks: his segment is published into a Redis that isn't there.
    const first = await restartRedis('SIGTERM', 6000, api, meeting);
    await waitForSpoken(stack, meeting.nativeId, 2);
    // A crash this time: what Redis acknowledged is in its append-only file.
    const second = await restartRedis('SIGKILL', 6000, api, meeting);
    // Reads don't need Redis: they were answered all along, promptly.
    for (const answer of [...first.answersWhileDown, ...second.answersWhileDown]) expect(answer).toBe(200);

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
      JSON.stringify({ first, second, meeting: figures, later: laterFigures }),
    );
    expect(worker.child.exitCode).toBeNull();
  });
});
