import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { scheduleBot } from '../../../shared/bots/scheduled-bots.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { findMeetingById } from '../../../shared/meetings/store.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { reconcile } from '../../../worker/sweeps/reconciler.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { testBotServiceDeps } from '../../support/bot-service-deps.js';
import { LaunchWorkers, until } from '../../support/launch-workers.js';

// Scheduled bots (POST /bots `join_at`) against the real API, Postgres, Redis and BullMQ, with
// launch workers as worker/create-worker.ts builds them; only the container runtime is a recorder, so no
// bot container is started. A worker "restart" closes one launch worker and starts a new one.

const log = createLogger('scheduled-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let api: TestApi;

/** Every container start any worker made: which meeting, when, by which worker. */
let workers: LaunchWorkers;

let meetingCounter = 0;
function nextMeetingId(): string {
  meetingCounter += 1;
  const letters = [676, 26, 1].map((unit) =>
    String.fromCharCode(97 + (Math.floor(meetingCounter / unit) % 26)),
  );
  return `sch-defg-${letters.join('')}`;
}

async function schedule(user: TestUser, joinAt: Date, nativeMeetingId = nextMeetingId()) {
  const response = await api.request('POST', '/bots', {
    key: user.key,
    json: googleMeetBot(nativeMeetingId, { join_at: joinAt.toISOString() }),
  });
  expect(response.status, response.text).toBe(201);
  return { meetingId: response.body.id as number, nativeMeetingId, body: response.body };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function startsOf(meetingId: number) {
  return workers.startsOf(meetingId);
}

beforeAll(async () => {
  api = await startTestApi({
    env: { BOT_SCHEDULE_HORIZON_DAYS: '7', BOT_SCHEDULE_CLOCK_SKEW_SECONDS: '30' },
  });
  workers = new LaunchWorkers(api, log);
});

afterEach(async () => {
  await workers.stopAll();
});

afterAll(async () => {
  // The launches opened real Redis credentials for their bots: revoke them.
  await workers?.closeSessions();
  await api?.close();
});

describe('POST /bots with join_at', () => {
  it('refuses a join_at in the past, beyond the horizon, without a time zone or malformed, with 400 {error}', async () => {
    const user = await api.createUser();
    const cases = [
      new Date(Date.now() - 120_000).toISOString(),
      new Date(Date.now() + 8 * 86_400_000).toISOString(),
      '2030-01-01T10:00:00',
      'tomorrow at ten',
      12345,
    ];
    for (const joinAt of cases) {
      const response = await api.request('POST', '/bots', {
        key: user.key,
        json: googleMeetBot(nextMeetingId(), { join_at: joinAt }),
      });
      expect(response.status, String(joinAt)).toBe(400);
      expect(Object.keys(response.body)).toEqual(['error']);
      expect(response.body.error).toMatch(/join_at/);
    }
    expect((await api.request('GET', '/meetings', { key: user.key })).body.meetings).toEqual([]);
  });

  it('creates a requested meeting with data.join_at that is not a running bot and takes no slot', async () => {
    const user = await api.createUser({ maxConcurrentBots: 1 });
    const joinAt = new Date(Date.now() + 3_600_000);
    const first = await schedule(user, joinAt);
    const second = await schedule(user, joinAt);
    expect(first.body.status).toBe('requested');
    expect(first.body.data.join_at).toBe(joinAt.toISOString());
    // Not running yet: GET /bots/status leaves them out, the meetings list has them.
    const status = await api.request('GET', '/bots/status', { key: user.key });
    expect(status.body.running_bots).toEqual([]);
    const list = await api.request('GET', '/meetings', { key: user.key });
    expect(list.body.meetings.map((meeting: { id: number }) => meeting.id).sort()).toEqual(
      [first.meetingId, second.meetingId].sort(),
    );
    // The limit of 1 still has room for a bot sent now; a second one now is refused.
    const now = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(nextMeetingId()) });
    expect(now.status).toBe(201);
    const over = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(nextMeetingId()) });
    expect(over.status).toBe(429);
    // The same meeting can't have a second bot scheduled while one waits.
    const duplicate = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot(first.nativeMeetingId, { join_at: joinAt.toISOString() }),
    });
    expect(duplicate.status).toBe(409);
  });
});

describe('launching at join_at', () => {
  it('launches at join_at after a worker restart in between, and not before', async () => {
    const user = await api.createUser();
    const before = workers.start('sched-a');
    const joinAt = new Date(Date.now() + 4000);
    const { meetingId } = await schedule(user, joinAt);
    await sleep(1000);
    expect(startsOf(meetingId)).toEqual([]);
    await workers.stop(before);
    await sleep(500);
    workers.start('sched-b');
    const [start] = await until(() => (startsOf(meetingId).length > 0 ? startsOf(meetingId) : undefined));
    expect(start?.workerId).toBe('sched-b');
    expect(start!.at).toBeGreaterThanOrEqual(joinAt.getTime() - 50);
    console.info(`scheduled launch after a worker restart: ${start!.at - joinAt.getTime()} ms after join_at`);
    // The target is 2 s (met here alone: the scheduled_launch_delay_seconds metric reports it in
    // production); the bound is generous because a loaded CI run took 4.1 s, the queue's delayed-job
    // poll and a new worker's start-up both waiting for the CPU.
    expect(start!.at - joinAt.getTime()).toBeLessThan(10_000);
    // The container id is stored once the start has returned: wait for it.
    await expect
      .poll(async () => (await findMeetingById(api.database.db, meetingId))?.botContainerId, {
        timeout: 20_000,
      })
      .toBe(`container-${meetingId}-${start?.sessionId}`);
    expect((await findMeetingById(api.database.db, meetingId))?.workerId).toBe('sched-b');
  });

  it('launches each scheduled bot exactly once with two worker replicas', async () => {
    const user = await api.createUser({ maxConcurrentBots: 10 });
    workers.start('replica-1');
    workers.start('replica-2');
    const joinAt = new Date(Date.now() + 2500);
    const scheduled = await Promise.all([1, 2, 3, 4].map(() => schedule(user, joinAt)));
    await until(() =>
      scheduled.every(({ meetingId }) => startsOf(meetingId).length > 0) ? true : undefined,
    );
    // Time for a second launch, if any could happen.
    await sleep(2000);
    for (const { meetingId } of scheduled) expect(startsOf(meetingId)).toHaveLength(1);
  });

  it('a cancelled scheduled bot never starts; the meeting ends completed, reason schedule_cancelled', async () => {
    const user = await api.createUser();
    workers.start('cancel-1');
    const joinAt = new Date(Date.now() + 2000);
    const { meetingId, nativeMeetingId } = await schedule(user, joinAt);
    const cancelled = await api.request('DELETE', `/bots/google_meet/${nativeMeetingId}`, { key: user.key });
    expect(cancelled.status).toBe(202);
    expect(cancelled.body.status).toBe('completed');
    await sleep(joinAt.getTime() - Date.now() + 2000);
    expect(startsOf(meetingId)).toEqual([]);
    const history = await listTransitions(api.database.db, meetingId);
    expect(history.at(-1)).toMatchObject({ to: 'completed', reason: 'schedule_cancelled' });
    // Nothing left to move or cancel.
    const again = await api.request('DELETE', `/bots/google_meet/${nativeMeetingId}`, { key: user.key });
    expect(again.status).toBe(404);
  });

  it('a moved bot launches at its new time only; a launched one cannot be moved', async () => {
    const user = await api.createUser();
    workers.start('move-1');
    const { meetingId, nativeMeetingId } = await schedule(user, new Date(Date.now() + 2000));
    const later = new Date(Date.now() + 5000);
    const moved = await api.request('PATCH', `/bots/google_meet/${nativeMeetingId}`, {
      key: user.key,
      json: { join_at: later.toISOString() },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data.join_at).toBe(later.toISOString());
    expect(moved.body.status).toBe('requested');
    await sleep(3500);
    expect(startsOf(meetingId)).toEqual([]);
    const [start] = await until(() => (startsOf(meetingId).length > 0 ? startsOf(meetingId) : undefined));
    expect(start!.at).toBeGreaterThanOrEqual(later.getTime() - 50);
    await sleep(1000);
    expect(startsOf(meetingId)).toHaveLength(1);
    const tooLate = await api.request('PATCH', `/bots/google_meet/${nativeMeetingId}`, {
      key: user.key,
      json: { join_at: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(tooLate.status).toBe(409);
    expect(Object.keys(tooLate.body)).toEqual(['error']);
  });

  it('a bot moved away from a time and back, after that time passed, still launches', async () => {
    const user = await api.createUser();
    workers.start('move-back-1');
    const first = new Date(Date.now() + 1000);
    const { meetingId, nativeMeetingId } = await schedule(user, first);
    const move = (joinAt: Date) =>
      api.request('PATCH', `/bots/google_meet/${nativeMeetingId}`, {
        key: user.key,
        json: { join_at: joinAt.toISOString() },
      });
    expect((await move(new Date(Date.now() + 3_600_000))).status).toBe(200);
    // The first time's job runs, finds the bot moved and does nothing.
    await sleep(2500);
    expect(startsOf(meetingId)).toEqual([]);
    // Back to that time (within the clock skew): its job runs again, and launches.
    expect((await move(first)).status).toBe(200);
    await until(() => (startsOf(meetingId).length > 0 ? startsOf(meetingId) : undefined));
    await sleep(500);
    expect(startsOf(meetingId)).toHaveLength(1);
  });

  it('refuses bad moves with 400 {error}, and unknown bots with 404', async () => {
    const user = await api.createUser();
    const { nativeMeetingId } = await schedule(user, new Date(Date.now() + 3_600_000));
    for (const body of [
      { join_at: 'soon' },
      { join_at: new Date(Date.now() - 3_600_000).toISOString() },
      {},
    ]) {
      const response = await api.request('PATCH', `/bots/google_meet/${nativeMeetingId}`, {
        key: user.key,
        json: body,
      });
      expect(response.status).toBe(400);
      expect(Object.keys(response.body)).toEqual(['error']);
    }
    const unknown = await api.request('PATCH', '/bots/google_meet/zzz-zzzz-zzz', {
      key: user.key,
      json: { join_at: new Date(Date.now() + 60_000).toISOString() },
    });
    expect(unknown.status).toBe(404);
  });

  it('when the concurrent-bot limit is full at join_at: failed, reason concurrent_limit_reached, bot.schedule_failed', async () => {
    const user = await api.createUser({ maxConcurrentBots: 1 });
    await api.database
      .db('users')
      .where({ id: user.id })
      .update({ webhook_url: 'http://127.0.0.1:9/hook', webhook_secret: 'whsec_test_secret_0123456789' });
    const joinAt = new Date(Date.now() + 2500);
    const { meetingId } = await schedule(user, joinAt);
    // The one slot is taken by a bot sent now.
    const now = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(nextMeetingId()) });
    expect(now.status).toBe(201);
    workers.start('limit-1');
    await until(async () => {
      const meeting = await findMeetingById(api.database.db, meetingId);
      return meeting?.status === 'failed' ? meeting : undefined;
    });
    expect(startsOf(meetingId)).toEqual([]);
    const history = await listTransitions(api.database.db, meetingId);
    expect(history.at(-1)).toMatchObject({ to: 'failed', reason: 'concurrent_limit_reached' });
    const events = await api.database
      .db('webhook_deliveries')
      .where({ meeting_id: meetingId })
      .orderBy('seq')
      .select('event_type', 'payload');
    expect(events.map((event) => event.event_type)).toEqual([
      'meeting.status_changed',
      'bot.scheduled',
      'meeting.status_changed',
      'bot.schedule_failed',
    ]);
    expect(events[3].payload).toMatchObject({
      meeting: { id: meetingId },
      join_at: joinAt.toISOString(),
      status: 'failed',
      reason: 'concurrent_limit_reached',
    });
  });
});

describe('the scheduling service a calendar feed calls', () => {
  const serviceDeps = () =>
    testBotServiceDeps(api, log, {
      defaultBotName: 'Notetaker',
      extraMeetingOrigins: [],
      schedule: { horizonDays: 7, clockSkewSeconds: 30 },
    });

  it('schedules one bot per occurrence key, however often (and however concurrently) it is asked', async () => {
    const user = await api.createUser();
    const auth = {
      keyId: 0,
      lastUsedAt: null,
      user: { id: user.id, email: user.email, maxConcurrentBots: 5 },
    };
    const request = {
      platform: 'google_meet' as const,
      nativeMeetingId: nextMeetingId(),
      joinAt: new Date(Date.now() + 3_600_000),
      scheduleKey: 'feed-1/event-abc/2026-12-01T09:00:00Z',
    };
    const answers = await Promise.all([1, 2, 3].map(() => scheduleBot(serviceDeps(), auth, request)));
    expect(answers.filter((answer) => answer.created)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.meeting.id)).size).toBe(1);
    const again = await scheduleBot(serviceDeps(), auth, request);
    expect(again).toMatchObject({ created: false, meeting: { id: answers[0]!.meeting.id } });
    const meetings = await api.request('GET', '/meetings', { key: user.key });
    expect(meetings.body.meetings).toHaveLength(1);
    expect(meetings.body.meetings[0].data.join_at).toBe(request.joinAt.toISOString());
  });
});

describe('the reconciler', () => {
  it('leaves a scheduled bot waiting for its time alone, long after REQUESTED_TIMEOUT_SECONDS', async () => {
    const user = await api.createUser();
    const { meetingId } = await schedule(user, new Date(Date.now() + 3_600_000));
    // Made long ago (older than the requested timeout and the requeue delay).
    await api.database
      .db('meetings')
      .where({ id: meetingId })
      .update({ created_at: api.database.db.raw("now() - interval '2 hours'") });
    const worker = workers.start('reconcile-1');
    const report = await reconcile(worker.deps);
    expect(report.failedUnclaimed).toBe(0);
    expect((await findMeetingById(api.database.db, meetingId))?.status).toBe('requested');
  });
});
