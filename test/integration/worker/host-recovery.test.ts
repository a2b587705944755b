import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser } from '../../../shared/accounts/users-store.js';
import { bullBotJobs } from '../../../shared/bots/jobs.js';
import { botAliveKey } from '../../../shared/contract/streams.js';
import { parseConfig } from '../../../shared/infra/config.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { type BotQueues, createBotQueues } from '../../../shared/infra/queues.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import { findMeetingById, insertMeeting, moveMeetingStatus } from '../../../shared/meetings/store.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { upsertSegments } from '../../../shared/transcripts/store.js';
import { recordHeartbeat, roomierWorkerExists } from '../../../shared/workers/store.js';
import { type RecoveryDeps, recoverLostHosts } from '../../../worker/sweeps/host-recovery.js';
import { requeueLaunches } from '../../../worker/sweeps/reconciler.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { recordRejoin } from '../../support/meetings.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('recovery-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let database: TestDatabase;
let redis: Redis;
let queues: BotQueues;
let prefix: string;
let userId: number;
const announced: number[] = [];

function depsFor(workerId: string, env: Record<string, string> = {}): RecoveryDeps {
  const registry = new Registry();
  return {
    config: parseConfig({
      QUEUE_PREFIX: prefix,
      WORKER_ID: workerId,
      WORKER_LOST_AFTER_SECONDS: '10',
      WORKER_HEARTBEAT_SECONDS: '1',
      BOT_MAX_RELAUNCHES: '2',
      ...env,
    }),
    db: database.db,
    redis,
    log,
    announce: async (ids) => {
      announced.push(...ids);
    },
    jobs: bullBotJobs(queues),
    metrics: {
      relaunches: new Counter({
        name: 'relaunches',
        help: 'h',
        labelNames: ['outcome'],
        registers: [registry],
      }),
      launchDuration: new Histogram({ name: 'launch', help: 'h', registers: [registry] }),
    },
  };
}

async function heartbeat(workerId: string, secondsAgo: number, bots = 0, slots = 4): Promise<void> {
  await recordHeartbeat(database.db, {
    workerId,
    dockerHost: `host-of-${workerId}`,
    slots,
    bots,
    accepting: true,
  });
  await database
    .db('workers')
    .where({ worker_id: workerId })
    .update({ heartbeat_at: database.db.raw(`now() - make_interval(secs => ?)`, [secondsAgo]) });
}

/** A meeting in the call whose bot runs on `workerId`, with one transcript segment. */
async function activeMeetingOn(workerId: string): Promise<{ meetingId: number; sessionId: string }> {
  const meeting = await insertMeeting(database.db, {
    userId,
    platform: 'google_meet',
    nativeMeetingId: `abc-defg-${Math.random().toString(36).slice(2, 5).padEnd(3, 'x')}`,
    meetingUrl: 'https://meet.google.com/abc-defg-hij',
    passcode: null,
    botName: 'Bot',
    language: null,
    task: 'transcribe',
  });
  const sessionId = randomUUID();
  await claimLaunch(database.db, meeting.id, { sessionId, workerId });
  await moveMeetingStatus(database.db, meeting.id, { to: 'active' });
  const origin = Date.now() - 60_000;
  await upsertSegments(database.db, [
    {
      meetingId: meeting.id,
      segmentId: `${sessionId}-0`,
      start: 10,
      end: 12.5,
      text: 'hello there',
      speaker: 'Alice',
      language: 'en',
      absoluteStartTime: new Date(origin + 10_000),
      absoluteEndTime: new Date(origin + 12_500),
      final: true,
    },
  ]);
  return { meetingId: meeting.id, sessionId };
}

beforeAll(async () => {
  database = await createTestDatabase();
  redis = createTestRedis();
  prefix = uniquePrefix('recovery');
  queues = createBotQueues(redis, prefix);
  userId = (
    await insertUser(database.db, {
      email: `r-${randomUUID()}@example.com`,
      name: 'R',
      maxConcurrentBots: 100,
    })
  ).id;
});

afterAll(async () => {
  await queues.launch.close();
  await queues.control.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await database.drop();
});

describe('relaunching the meetings of a lost host', () => {
  it('relaunches a lapsed worker’s live meeting once, however many workers sweep at the same time', async () => {
    await heartbeat('lost-1', 60);
    await heartbeat('alive-a', 0);
    await heartbeat('alive-b', 0);
    const { meetingId, sessionId } = await activeMeetingOn('lost-1');

    const reports = await Promise.all([
      recoverLostHosts(depsFor('alive-a')),
      recoverLostHosts(depsFor('alive-b')),
      recoverLostHosts(depsFor('alive-a')),
    ]);
    expect(reports.reduce((sum, report) => sum + report.relaunched, 0)).toBe(1);

    const meeting = await findMeetingById(database.db, meetingId);
    expect(meeting).toMatchObject({
      status: 'active',
      launchSessionId: null,
      workerId: null,
      relaunchCount: 1,
    });
    expect(meeting?.launchSessionId).not.toBe(sessionId);
    const events = await listTransitions(database.db, meetingId);
    const relaunched = events.filter((event) => event.reason === 'relaunched');
    expect(relaunched).toHaveLength(1);
    expect(relaunched[0]).toMatchObject({ from: 'active', to: 'active', source: 'worker' });
    expect(relaunched[0]?.detail).toContain('worker lost-1 on Docker host host-of-lost-1');
    expect(relaunched[0]?.detail).toContain('(12.5 s)');
    expect(relaunched[0]?.detail).toContain('relaunch 1 of at most 2');
    const job = await queues.launch.getJob(`launch-${meetingId}-relaunch-1`);
    expect(job?.data).toMatchObject({ meetingId, relaunch: 1 });
    expect(announced).toContain(meetingId);

    // The new launch claims it like a requested meeting; the first `active` of its bot says `rejoined`, once.
    const claimed = await claimLaunch(database.db, meetingId, {
      sessionId: randomUUID(),
      workerId: 'alive-a',
    });
    expect(claimed?.relaunchCount).toBe(1);
    expect(await recordRejoin(database.db, claimed!, new Date())).toBe(true);
    expect(await recordRejoin(database.db, claimed!, new Date())).toBe(false);
    expect((await listTransitions(database.db, meetingId)).at(-1)).toMatchObject({
      reason: 'rejoined',
      from: 'active',
      to: 'active',
    });
  });

  it('leaves alone a meeting whose bot still runs (only its worker went silent)', async () => {
    await heartbeat('lost-2', 60);
    const { meetingId, sessionId } = await activeMeetingOn('lost-2');
    await redis.set(botAliveKey(prefix, sessionId), '1', 'PX', 30_000);

    const report = await recoverLostHosts(depsFor('alive-a'));
    expect(report.botsStillAlive).toBeGreaterThanOrEqual(1);
    expect(await findMeetingById(database.db, meetingId)).toMatchObject({
      launchSessionId: sessionId,
      relaunchCount: 0,
    });

    await redis.del(botAliveKey(prefix, sessionId));
    await recoverLostHosts(depsFor('alive-a'));
    expect(await findMeetingById(database.db, meetingId)).toMatchObject({
      launchSessionId: null,
      relaunchCount: 1,
    });
  });

  it('does nothing while the worker’s heartbeat is fresh, and never sweeps its own meetings', async () => {
    await heartbeat('busy', 3);
    const { meetingId, sessionId } = await activeMeetingOn('busy');
    await recoverLostHosts(depsFor('alive-a'));
    await database
      .db('workers')
      .where({ worker_id: 'busy' })
      .update({ heartbeat_at: database.db.raw(`now() - interval '1 hour'`) });
    await recoverLostHosts(depsFor('busy'));
    expect(await findMeetingById(database.db, meetingId)).toMatchObject({
      launchSessionId: sessionId,
      relaunchCount: 0,
    });
    await recoverLostHosts(depsFor('alive-a'));
    expect(await findMeetingById(database.db, meetingId)).toMatchObject({
      launchSessionId: null,
      relaunchCount: 1,
    });
  });

  it('gives up (failed, relaunch_gave_up) after BOT_MAX_RELAUNCHES relaunches', async () => {
    await heartbeat('lost-3', 60);
    const { meetingId } = await activeMeetingOn('lost-3');
    await database.db('meetings').where({ id: meetingId }).update({ relaunch_count: 2 });
    const report = await recoverLostHosts(depsFor('alive-a'));
    expect(report.gaveUp).toBeGreaterThanOrEqual(1);
    const meeting = await findMeetingById(database.db, meetingId);
    expect(meeting?.status).toBe('failed');
    const last = (await listTransitions(database.db, meetingId)).at(-1);
    expect(last).toMatchObject({ to: 'failed', reason: 'relaunch_gave_up' });
    expect(last?.detail).toContain('relaunched 2 times already');
  });

  it('fails a relaunch no worker took within REQUESTED_TIMEOUT_SECONDS', async () => {
    await heartbeat('lost-4', 60);
    const { meetingId } = await activeMeetingOn('lost-4');
    await recoverLostHosts(depsFor('alive-a'));
    await database
      .db('meetings')
      .where({ id: meetingId })
      .update({ relaunch_requested_at: database.db.raw(`now() - interval '1 hour'`) });
    const report = await recoverLostHosts(depsFor('alive-a', { REQUESTED_TIMEOUT_SECONDS: '60' }));
    expect(report.relaunchesTimedOut).toBeGreaterThanOrEqual(1);
    expect((await listTransitions(database.db, meetingId)).at(-1)).toMatchObject({
      to: 'failed',
      reason: 'relaunch_gave_up',
      detail: 'no worker took the relaunch within 60 s',
    });
  });
});

describe('placement by free capacity', () => {
  it('finds a live, accepting worker with more free slots than this one, and only such a worker', async () => {
    await database.db('workers').delete();
    await heartbeat('me', 0, 2, 4);
    await heartbeat('other', 0, 1, 4);
    expect(await roomierWorkerExists(database.db, { workerId: 'me', free: 2 }, 15)).toBe(true);
    expect(await roomierWorkerExists(database.db, { workerId: 'me', free: 3 }, 15)).toBe(false);
    await heartbeat('other', 60, 0, 4);
    expect(await roomierWorkerExists(database.db, { workerId: 'me', free: 2 }, 15)).toBe(false);
    await heartbeat('other', 0, 0, 4);
    await database.db('workers').where({ worker_id: 'other' }).update({ accepting: false });
    expect(await roomierWorkerExists(database.db, { workerId: 'me', free: 2 }, 15)).toBe(false);
  });
});

describe('a launch the API never queued (its process died right after the commit)', () => {
  it('is queued by the reconciler once it has waited half a minute, and a queued one is left alone', async () => {
    const meeting = await insertMeeting(database.db, {
      userId,
      platform: 'google_meet',
      nativeMeetingId: 'unq-ueue-dme',
      meetingUrl: 'https://meet.google.com/unq-ueue-dme',
      passcode: null,
      botName: 'Bot',
      language: null,
      task: 'transcribe',
    });
    const deps = depsFor('alive-a');
    await requeueLaunches(deps);
    expect(await queues.launch.getJob(`launch-${meeting.id}`)).toBeUndefined();

    await database
      .db('meetings')
      .where({ id: meeting.id })
      .update({ created_at: database.db.raw(`now() - interval '1 minute'`) });
    await requeueLaunches(deps);
    const job = await queues.launch.getJob(`launch-${meeting.id}`);
    expect(job?.data).toMatchObject({ meetingId: meeting.id, userId, platform: 'google_meet' });
    const queuedAt = job?.timestamp;
    await requeueLaunches(deps);
    expect((await queues.launch.getJob(`launch-${meeting.id}`))?.timestamp).toBe(queuedAt);
    expect(
      await queues.launch.getJobCountByTypes('waiting', 'prioritized', 'delayed'),
    ).toBeGreaterThanOrEqual(1);
  });
});
