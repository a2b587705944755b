import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL } from '../../support/env.js';
import { type OwnPostgres, startOwnPostgres } from '../../support/postgres-server.js';
import { type Stack, startStack, type WorkerProcess } from '../../support/stack.js';
import {
  auditFaultMeeting,
  endFaultMeeting,
  expectNoContainers,
  ONE_SENTENCE,
  startFaultMeeting,
  waitForSpoken,
} from './meeting.js';

let postgres: OwnPostgres;
let stack: Stack;
let worker: WorkerProcess;
let redis: Redis;

beforeAll(async () => {
  postgres = await startOwnPostgres();
  stack = await startStack({ postgresUrl: postgres.url, workerEnv: { BOT_LOG_LEVEL: 'debug' } });
  worker = stack.startWorker('postgres-restart-w1');
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
  await postgres?.destroy();
});

/**
 * Stops Postgres, leaves it down while a sentence is spoken (asking the API meanwhile), starts it
 * again; returns how long it was down and what the API answered while it was.
 */
async function restartPostgres(
  mode: 'fast' | 'immediate',
  downMs: number,
  meetingId: number,
): Promise<{ downMs: number; answersWhileDown: number[] }> {
  const stoppedAt = Date.now();
  await postgres.stop(mode);
  const answersWhileDown: number[] = [];
  while (Date.now() - stoppedAt < downMs) {
    const response = await stack.api.request('GET', `/meetings/${meetingId}`, { key: stack.user.key });
    answersWhileDown.push(response.status);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  await postgres.start();
  return { downMs: Date.now() - stoppedAt, answersWhileDown };
}

describe('Postgres restarted mid-meeting (a fast shutdown, then a crash)', () => {
  it('ingest waits and resumes: no segment lost or doubled, the meeting ends completed, no container left', async () => {
    const meeting = await startFaultMeeting(stack);
    await waitForSpoken(stack, meeting.nativeId, 0);

    const first = await restartPostgres('fast', 6000, meeting.meetingId);
    await waitForSpoken(stack, meeting.nativeId, 2);
    const second = await restartPostgres('immediate', 6000, meeting.meetingId);
    // While it was down the API said so (503), never 500.
    for (const status of [...first.answersWhileDown, ...second.answersWhileDown]) expect(status).toBe(503);

    const status = await stack.api.request('GET', `/meetings/${meeting.meetingId}`, { key: stack.user.key });
    expect(status.status).toBe(200);
    expect(status.body.status).toBe('active');
    // The worker takes a new launch once the database is back.
    const later = await startFaultMeeting(stack, ONE_SENTENCE);

    await endFaultMeeting(stack, meeting);
    await endFaultMeeting(stack, later);
    const figures = await auditFaultMeeting(stack, redis, meeting);
    const laterFigures = await auditFaultMeeting(stack, redis, later);
    await expectNoContainers(stack);
    console.log(
      'postgres restart figures',
      JSON.stringify({ first, second, meeting: figures, later: laterFigures }),
    );
    expect(worker.child.exitCode).toBeNull();
  });
});
