import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { streamFields } from '../../../shared/contract/stream-codec.js';
import { botSessionStream } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { findMeetingById } from '../../../shared/meetings/store.js';
import { applyBotEnd, type BotEnd, joinRetryOf } from '../../../worker/retries/bot-outcome.js';
import { Ingester } from '../../../worker/ingest/ingester.js';
import { sweepPendingRetries } from '../../../worker/sweeps/reconciler.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { type LaunchWorker, LaunchWorkers, until } from '../../support/launch-workers.js';
import { tempRecordingStorage } from '../../support/recording-storage.js';

// Retries of refused bots against the real API, Postgres, Redis and BullMQ, with launch workers as
// worker/create-worker.ts builds them; the container runtime is a recorder (no bot runs), and the bot's end is
// applied the way the ingester and the exit handler apply a bot's final event (applyBotEnd).

const log = createLogger('join-retries-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let api: TestApi;

let workers: LaunchWorkers;

let meetingCounter = 0;
function nextMeetingId(): string {
  meetingCounter += 1;
  const letters = [676, 26, 1].map((unit) =>
    String.fromCharCode(97 + (Math.floor(meetingCounter / unit) % 26)),
  );
  return `rty-defg-${letters.join('')}`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startsOf(meetingId: number) {
  return workers.startsOf(meetingId);
}

async function sendBot(user: TestUser) {
  const nativeMeetingId = nextMeetingId();
  const response = await api.request('POST', '/bots', {
    key: user.key,
    json: googleMeetBot(nativeMeetingId),
  });
  expect(response.status, response.text).toBe(201);
  return { meetingId: response.body.id as number, nativeMeetingId };
}

/** The n-th launch of the meeting (1 = the first), once a worker has started it. */
async function launchNumber(meetingId: number, n: number) {
  return until(() => startsOf(meetingId)[n - 1]);
}

const refused: BotEnd = {
  status: 'failed',
  reason: 'blocked_by_platform',
  detail: "you can't join this video call",
  source: 'bot',
};

async function eventsOf(user: TestUser, meetingId: number) {
  const response = await api.request('GET', `/meetings/${meetingId}/events`, { key: user.key });
  expect(response.status).toBe(200);
  return response.body.events as Array<{
    from: string;
    to: string;
    source: string;
    reason: string;
    detail: string;
  }>;
}

beforeAll(async () => {
  api = await startTestApi();
  workers = new LaunchWorkers(api, log, { BOT_RETRY_ATTEMPTS: '2', BOT_RETRY_BACKOFF_SECONDS: '1' });
});

afterEach(async () => {
  await workers.stopAll();
});

afterAll(async () => {
  // The launches opened real Redis credentials for their bots: revoke them.
  await workers?.closeSessions();
  await api?.close();
});

describe('retrying a refused bot', () => {
  it('relaunches after a doubling backoff, once per refusal with two workers, then fails with the last reason', async () => {
    const user = await api.createUser();
    const a = workers.start('retry-a');
    const b = workers.start('retry-b');
    const { meetingId } = await sendBot(user);
    const first = await launchNumber(meetingId, 1);

    // Both workers read the refusal (the ingester and an exit handler do): one retry. The backoff
    // counts from the refusal, so it is timed from before it is applied: a slow apply under load
    // only makes the wait look longer, never shorter.
    const refusedAt = Date.now();
    const ends = await Promise.all(
      [a, b].map((w) => applyBotEnd(deps(w), meetingId, first.sessionId, refused)),
    );
    expect(ends.sort()).toEqual(['ignored', 'retrying']);
    const second = await launchNumber(meetingId, 2);
    expect(second.at - refusedAt).toBeGreaterThanOrEqual(900);
    expect(second.sessionId).not.toBe(first.sessionId);

    const refusedAgainAt = Date.now();
    expect(await applyBotEnd(deps(a), meetingId, second.sessionId, refused)).toBe('retrying');
    const third = await launchNumber(meetingId, 3);
    expect(third.at - refusedAgainAt).toBeGreaterThanOrEqual(1900);

    // Out of retries: the meeting ends with the last attempt's reason.
    expect(await applyBotEnd(deps(b), meetingId, third.sessionId, refused)).toBe('ended');
    await sleep(2500);
    expect(startsOf(meetingId)).toHaveLength(3);
    const meeting = await findMeetingById(api.database.db, meetingId);
    expect(meeting).toMatchObject({ status: 'failed', joinRetries: 2, retryDueAt: null });

    const events = (await eventsOf(user, meetingId)).filter(
      (event) => event.reason === 'blocked_by_platform',
    );
    expect(events.map(({ from, to, source }) => ({ from, to, source }))).toEqual([
      { from: 'requested', to: 'requested', source: 'bot' },
      { from: 'requested', to: 'requested', source: 'bot' },
      { from: 'requested', to: 'failed', source: 'bot' },
    ]);
    expect(events.map((event) => event.detail)).toEqual([
      "attempt 1 of 3: you can't join this video call; attempt 2 in 1 s",
      "attempt 2 of 3: you can't join this video call; attempt 3 in 2 s",
      "attempt 3 of 3: you can't join this video call",
    ]);
  }, 40_000);

  it("a refusal on the bot's own stream, read by two workers' ingesters, is retried once", async () => {
    const user = await api.createUser();
    const a = workers.start('retry-g');
    const b = workers.start('retry-h');
    const { meetingId } = await sendBot(user);
    const first = await launchNumber(meetingId, 1);
    const redis = a.connections[0]!;
    for (const [seq, event] of [
      { status: 'joining' },
      { status: 'failed', reason: 'blocked_by_platform', detail: 'refused' },
    ].entries()) {
      await redis.xadd(
        botSessionStream(api.prefix, first.sessionId, 'events'),
        '*',
        ...streamFields({
          meetingId,
          sessionId: first.sessionId,
          at: new Date().toISOString(),
          seq,
          ...event,
        }),
      );
    }
    const ingesters = [a, b].map((w) => {
      const eventsRedis = redis.duplicate();
      const segmentsRedis = redis.duplicate();
      w.connections.push(eventsRedis, segmentsRedis);
      return new Ingester({
        db: api.database.db,
        eventsRedis,
        segmentsRedis,
        publisher: redis,
        prefix: api.prefix,
        consumerName: w.deps.config.WORKER_ID,
        log,
        recordingStorage: tempRecordingStorage(),
        joinRetry: joinRetryOf(w.deps),
      });
    });
    await Promise.all(ingesters.map((ingester) => ingester.events.drain()));
    for (const ingester of ingesters) await ingester.stop();
    expect(await findMeetingById(api.database.db, meetingId)).toMatchObject({
      status: 'joining',
      joinRetries: 1,
    });
    await launchNumber(meetingId, 2);
    await sleep(2000);
    expect(startsOf(meetingId)).toHaveLength(2);
    const refusals = (await eventsOf(user, meetingId)).filter(
      (event) => event.reason === 'blocked_by_platform',
    );
    expect(refusals).toEqual([
      expect.objectContaining({
        from: 'joining',
        to: 'joining',
        detail: 'attempt 1 of 3: refused; attempt 2 in 1 s',
      }),
    ]);
  }, 30_000);

  it('does not retry a verification screen, a sign-in screen, a missing meeting or a denial', async () => {
    const user = await api.createUser();
    const a = workers.start('retry-c');
    for (const reason of [
      'verification_required',
      'sign_in_required',
      'meeting_not_found',
      'admission_denied',
    ]) {
      const { meetingId } = await sendBot(user);
      const first = await launchNumber(meetingId, 1);
      expect(
        await applyBotEnd(deps(a), meetingId, first.sessionId, { ...refused, reason, detail: 'x' }),
      ).toBe('ended');
      const meeting = await findMeetingById(api.database.db, meetingId);
      expect(meeting, reason).toMatchObject({ status: 'failed', joinRetries: 0 });
      const last = (await eventsOf(user, meetingId)).at(-1);
      expect(last).toMatchObject({ to: 'failed', reason, detail: 'x' });
    }
  }, 30_000);

  it('a stop during the backoff cancels the retry', async () => {
    const user = await api.createUser();
    const a = workers.start('retry-d', { BOT_RETRY_BACKOFF_SECONDS: '3' });
    const { meetingId, nativeMeetingId } = await sendBot(user);
    const first = await launchNumber(meetingId, 1);
    expect(await applyBotEnd(deps(a), meetingId, first.sessionId, refused)).toBe('retrying');
    const stop = await api.request('DELETE', `/bots/google_meet/${nativeMeetingId}`, { key: user.key });
    expect(stop.status, stop.text).toBe(202);
    await sleep(4500);
    expect(startsOf(meetingId)).toHaveLength(1);
    expect(await findMeetingById(api.database.db, meetingId)).toMatchObject({ status: 'completed' });
    const events = await eventsOf(user, meetingId);
    expect(events.at(-1)).toMatchObject({ to: 'completed', source: 'api', reason: 'stopped' });
  }, 30_000);

  it('the retry waits in Redis across a worker restart, and a lost enqueue is queued by the reconciler', async () => {
    const user = await api.createUser();
    const before = workers.start('retry-e', { BOT_RETRY_BACKOFF_SECONDS: '2' });
    const { meetingId } = await sendBot(user);
    const first = await launchNumber(meetingId, 1);
    expect(await applyBotEnd(deps(before), meetingId, first.sessionId, refused)).toBe('retrying');
    await workers.stop(before);
    const after = workers.start('retry-f');
    const second = await launchNumber(meetingId, 2);
    expect(second.workerId).toBe('retry-f');

    // A retry whose job never reached Redis: the reconciler queues it once it is overdue.
    const lost = await sendBot(user);
    const lostFirst = await launchNumber(lost.meetingId, 1);
    const noQueue = {
      ...deps(after),
      retry: {
        ...joinRetryOf(after.deps)!,
        jobs: {
          launch: async () => {
            throw new Error('Redis away');
          },
        },
      },
    };
    expect(await applyBotEnd(noQueue, lost.meetingId, lostFirst.sessionId, refused)).toBe('retrying');
    await api.database
      .db('meetings')
      .where({ id: lost.meetingId })
      .update({ retry_due_at: new Date(Date.now() - 60_000) });
    await sleep(1500);
    expect(startsOf(lost.meetingId)).toHaveLength(1);
    expect(await sweepPendingRetries(after.deps)).toBe(0);
    await launchNumber(lost.meetingId, 2);
  }, 40_000);
});

function deps(target: LaunchWorker) {
  return { db: target.deps.db, log, retry: joinRetryOf(target.deps) };
}
