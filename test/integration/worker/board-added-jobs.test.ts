import type { Job, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_QUEUE, JobNames, LAUNCH_QUEUE } from '../../../shared/contract/jobs.js';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { insertMeeting, type MeetingRecord, moveMeetingStatus } from '../../../shared/meetings/store.js';
import { BotFleet } from '../../../worker/fleet/bot-fleet.js';
import type { BotRuntime } from '../../../worker/runtime/bot-runtime.js';
import { ADMIN_KEY, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { runControlWorker, runLaunchWorker, testWorkerDeps } from '../../support/launch-workers.js';
import { createTestRedis } from '../../support/redis.js';

// Bull Board lets an operator add any job with any data to our queues. Whatever is added there
// must fail at once, before it touches a container or a bot, unless it is exactly the work the
// API itself would have queued.

const basic = `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`;
const log = createLogger('board-jobs-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let api: TestApi;
let user: TestUser;
let workers: Worker[] = [];
/** Every call the workers make to the container runtime: none is expected. */
const runtimeCalls: string[] = [];

const recordingRuntime: BotRuntime = {
  sharedAmongWorkers: false,
  async start() {
    runtimeCalls.push('start');
    return 'container-never-started';
  },
  async inspect() {
    runtimeCalls.push('inspect');
    return undefined;
  },
  async list() {
    runtimeCalls.push('list');
    return [];
  },
  async stop() {
    runtimeCalls.push('stop');
  },
  async remove() {
    runtimeCalls.push('remove');
  },
  async logsTail() {
    runtimeCalls.push('logsTail');
    return '';
  },
  async usage() {
    runtimeCalls.push('usage');
    return undefined;
  },
  async onExit() {
    runtimeCalls.push('onExit');
    return () => undefined;
  },
};

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser();
  const redis = createTestRedis(api.config.REDIS_URL);
  const deps = testWorkerDeps({
    config: api.config,
    db: api.database.db,
    redis,
    queues: api.queues,
    runtime: recordingRuntime,
    log,
    fleet: new BotFleet(2),
  });
  workers = [runLaunchWorker(deps, redis.duplicate()), runControlWorker(deps, redis.duplicate())];
});

afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.close()));
  await api?.close();
});

let meetingCounter = 0;
async function meetingIn(status: 'requested' | 'active'): Promise<MeetingRecord> {
  meetingCounter += 1;
  const meeting = await insertMeeting(api.database.db, {
    userId: user.id,
    platform: 'google_meet',
    nativeMeetingId: `brd-defg-${String(meetingCounter).padStart(3, '0')}`,
    meetingUrl: 'https://meet.google.com/abc-defg-hij',
    passcode: null,
    botName: 'Bot',
    language: null,
    task: 'transcribe',
  });
  if (status === 'active') await moveMeetingStatus(api.database.db, meeting.id, { to: 'active' });
  return meeting;
}

/** Adds a job the way the board's "Add job" dialog does, from the board's own page. */
async function addThroughBoard(queue: string, name: string, data: unknown): Promise<string> {
  const response = await fetch(`${api.baseUrl}/admin/queues/api/queues/${queue}/add`, {
    method: 'POST',
    headers: { Authorization: basic, 'Content-Type': 'application/json', Origin: api.baseUrl },
    body: JSON.stringify({ name, data, options: { attempts: 5 } }),
  });
  expect(response.status).toBe(200);
  const { job } = (await response.json()) as { job: { id: string } };
  return job.id;
}

async function settled(queue: 'launch' | 'control', id: string): Promise<Job> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const state = await api.queues[queue].getJobState(id);
    const job = await api.queues[queue].getJob(id);
    // Read after the state, so a job seen finished carries its outcome.
    if (job && (state === 'failed' || state === 'completed')) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${state} after 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function commandsSentTo(meetingId: number): Promise<number> {
  return api.redis.xlen(botCommandsStream(api.prefix, meetingId));
}

describe('jobs added through Bull Board', () => {
  it('fail at once, without retries, when their data is not a payload at all', async () => {
    const launch = await addThroughBoard(LAUNCH_QUEUE, JobNames.launchBot, { meetingId: 'one' });
    const stop = await addThroughBoard(CONTROL_QUEUE, JobNames.stopBot, 'stop everything');
    const unknown = await addThroughBoard(CONTROL_QUEUE, 'drop-tables', {});
    for (const [queue, id, reason] of [
      ['launch', launch, /invalid launch-bot payload/],
      ['control', stop, /invalid stop-bot payload/],
      ['control', unknown, /unknown job drop-tables/],
    ] as const) {
      const job = await settled(queue, id);
      expect(await job.getState()).toBe('failed');
      expect(job.failedReason).toMatch(reason);
      expect(job.attemptsMade).toBe(1);
    }
    expect(runtimeCalls).toEqual([]);
  });

  it('refuse a well-formed stop for a meeting its user never stopped (the bot is not told to leave)', async () => {
    const meeting = await meetingIn('active');
    const id = await addThroughBoard(CONTROL_QUEUE, JobNames.stopBot, {
      meetingId: meeting.id,
      userId: user.id,
      platform: meeting.platform,
      nativeMeetingId: meeting.nativeMeetingId,
      botContainerId: null,
      requestedAt: new Date().toISOString(),
    });
    const job = await settled('control', id);
    expect(await job.getState()).toBe('failed');
    expect(job.failedReason).toMatch(/is active, not stopped/);
    expect(job.attemptsMade).toBe(1);
    expect(await commandsSentTo(meeting.id)).toBe(0);
    expect(runtimeCalls).toEqual([]);
  });

  it("refuse a launch whose user, platform or meeting id disagree with the meeting's", async () => {
    const meeting = await meetingIn('requested');
    const other = await api.createUser();
    const ref = {
      meetingId: meeting.id,
      userId: user.id,
      platform: meeting.platform,
      nativeMeetingId: meeting.nativeMeetingId,
    };
    for (const data of [
      { ...ref, userId: other.id },
      { ...ref, platform: 'teams' },
      { ...ref, nativeMeetingId: 'zzz-zzzz-zzz' },
    ]) {
      const job = await settled('launch', await addThroughBoard(LAUNCH_QUEUE, JobNames.launchBot, data));
      expect(await job.getState()).toBe('failed');
      expect(job.failedReason).toMatch(/does not match meeting/);
      expect(job.attemptsMade).toBe(1);
    }
    expect(runtimeCalls).toEqual([]);
  });
});
