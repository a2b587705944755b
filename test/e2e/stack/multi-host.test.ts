import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { type DockerEngine, startDockerEngine } from '../../support/docker-engine.js';
import { createTestRedis } from '../../support/redis.js';
import { type Stack, startStack, type WorkerProcess } from '../../support/stack.js';

/**
 * Two Docker hosts on one machine: the default engine ("host A") and a second engine with its own
 * socket, data root and exec root ("host B"), one worker on each. Launches spread by free capacity;
 * host B is lost mid-meeting (engine, containerd, bots and worker killed at once); its meeting is
 * relaunched on host A and its transcript carries on, while host A's own meeting is untouched; a full
 * host takes no more; host B comes back, drops its stale bot and takes launches again.
 */

const BOT_IMAGE = process.env.BOT_IMAGE ?? 'meetbot/bot:latest';
const WORKER_ENV = {
  BOT_SLOTS: '2',
  WORKER_HEARTBEAT_SECONDS: '1',
  // Short, so the lost host's meeting moves within the test; not so short that a worker the
  // machine's other lanes keep from its heartbeat for a few seconds counts as lost (host A's own
  // meeting was once relaunched that way).
  WORKER_LOST_AFTER_SECONDS: '12',
  RECONCILE_INTERVAL_SECONDS: '2',
  // Two workers on one machine: metrics ports would collide.
  WORKER_METRICS_PORT: '0',
};
const HOST_A = 'host-a-worker';
const redis = createTestRedis();

async function botUsers(): Promise<string[]> {
  return (await redis.call('ACL', 'USERS')) as string[];
}
const HOST_B = 'host-b-worker';

const SENTENCES = [
  'the quarterly report is finished and ready for review',
  'we should move the release to the second week of march',
  'please send the updated budget to the finance team today',
  'the new office opens next month with room for forty people',
  'our customers asked for better search and faster exports',
  'let us schedule a follow up meeting on thursday afternoon',
];

/** Two people taking turns for the whole meeting, so there is always speech to transcribe. */
function continuousSpeech(seconds: number) {
  const alice: Array<{ at: number; text: string }> = [];
  const bob: Array<{ at: number; text: string }> = [];
  for (let at = 1, turn = 0; at < seconds; at += 6, turn += 1) {
    (turn % 2 === 0 ? alice : bob).push({ at, text: SENTENCES[turn % SENTENCES.length]! });
  }
  return [
    { name: 'Alice Archer', voice: 'slt' as const, utterances: alice },
    { name: 'Bob Baker', voice: 'rms' as const, utterances: bob },
  ];
}

interface SegmentRow {
  segment_id: string;
  start_seconds: number;
  end_seconds: number;
  text: string;
  is_final: boolean;
  absolute_start_time: Date;
  absolute_end_time: Date;
  created_at: Date;
}

let stack: Stack;
let hostB: DockerEngine;
const workers = new Map<string, WorkerProcess>();
/** Every meeting a test asked a bot for, so a retry starts without an earlier try's bots. */
const meetings: Array<{ meetingId: number; nativeId: string; platform: string }> = [];

function startWorkerOn(id: string): WorkerProcess {
  // Both engines run on one machine and share its name and engine id: name the hosts.
  const worker = stack.startWorker(
    id,
    id === HOST_B ? { DOCKER_HOST: hostB.host, DOCKER_HOST_NAME: 'host-b' } : { DOCKER_HOST_NAME: 'host-a' },
  );
  workers.set(id, worker);
  return worker;
}

async function segmentsOf(meetingId: number): Promise<SegmentRow[]> {
  return stack.api.database
    .db('transcript_segments')
    .where({ meeting_id: meetingId })
    .orderBy('absolute_start_time');
}

async function workerOf(meetingId: number): Promise<string | null> {
  return (await stack.api.database.db('meetings').where({ id: meetingId }).first('worker_id')).worker_id;
}

async function containersOn(engine: DockerEngine | undefined, meetingId: number) {
  const docker = engine?.docker ?? stack.docker;
  return docker.listContainers({
    all: true,
    filters: { label: [`${Labels.deployment}=${stack.api.prefix}`, `${Labels.meetingId}=${meetingId}`] },
  });
}

async function waitForEvent(meetingId: number, reason: string, timeoutMs: number) {
  let found: Awaited<ReturnType<Stack['transitions']>>[number] | undefined;
  await expect
    .poll(
      async () => {
        found = (await stack.transitions(meetingId)).find((event) => event.reason === reason);
        return found !== undefined;
      },
      { timeout: timeoutMs, interval: 500 },
    )
    .toBe(true);
  return found!;
}

beforeAll(async () => {
  hostB = await startDockerEngine('host-b');
  stack = await startStack({ workerEnv: WORKER_ENV });
  await hostB.copyImage(BOT_IMAGE);
  startWorkerOn(HOST_A);
  startWorkerOn(HOST_B);
  const deadline = Date.now() + 60_000;
  while ((await stack.api.database.db('workers').pluck('worker_id')).length < 2) {
    if (Date.now() > deadline) throw new Error('the two workers never recorded a heartbeat');
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}, 600_000);

/**
 * What a failed try may have left (the test runs once more after a failure): host B down with its
 * worker, and bots still in their meetings, holding host A's slots. Each test starts with both hosts
 * up and no bot anywhere.
 */
beforeEach(async () => {
  const hostBUp = await hostB.docker.ping().then(
    () => true,
    () => false,
  );
  if (!hostBUp) await hostB.restart();
  const hostBWorker = workers.get(HOST_B)?.child;
  if (!hostBWorker || hostBWorker.exitCode !== null || hostBWorker.signalCode !== null) startWorkerOn(HOST_B);
  const left = meetings.splice(0);
  for (const meeting of left) {
    await stack.api.request('DELETE', `/bots/${meeting.platform}/${meeting.nativeId}`, {
      key: stack.user.key,
    });
  }
  for (const meeting of left) await stack.waitForStatus(meeting.meetingId, ['completed', 'failed'], 120_000);
  for (const engine of [undefined, hostB]) {
    for (const meeting of left) {
      await expect.poll(() => containersOn(engine, meeting.meetingId), { timeout: 90_000 }).toEqual([]);
    }
  }
}, 600_000);

/** A meeting with a bot asked for, remembered for the next test's clean start. */
async function meetingWithBot(input: Parameters<Stack['createMeetingAndBot']>[0]) {
  const meeting = await stack.createMeetingAndBot(input);
  meetings.push(meeting);
  return meeting;
}

afterAll(async () => {
  await stack?.close();
  await hostB?.stop();
  redis.disconnect();
});

describe.each(['google_meet', 'teams'] as const)('%s on two Docker hosts', (platform) => {
  it('spreads launches, relaunches the lost host’s meeting on the other, and leaves the other meeting untouched', async () => {
    const meetingInput = {
      platform,
      admission: { policy: 'after' as const, delaySeconds: 2 },
      participants: continuousSpeech(240),
    };
    const first = await meetingWithBot(meetingInput);
    await stack.waitForStatus(first.meetingId, ['active'], 180_000);
    const second = await meetingWithBot(meetingInput);
    await stack.waitForStatus(second.meetingId, ['active'], 180_000);

    // Both hosts had two free slots: the second launch went to the host with more room.
    const firstWorker = await workerOf(first.meetingId);
    const secondWorker = await workerOf(second.meetingId);
    expect([firstWorker, secondWorker].sort()).toEqual([HOST_A, HOST_B]);
    const lost = firstWorker === HOST_B ? first : second;
    const survivor = lost === first ? second : first;
    expect(await workerOf(lost.meetingId)).toBe(HOST_B);
    const [survivorContainer] = await containersOn(undefined, survivor.meetingId);
    expect(survivorContainer?.State).toBe('running');

    await expect
      .poll(async () => (await segmentsOf(lost.meetingId)).filter((s) => s.is_final).length, {
        timeout: 120_000,
      })
      .toBeGreaterThanOrEqual(2);
    const survivorBefore = (await segmentsOf(survivor.meetingId)).length;
    // Its join may have taken a retry under load (an event of its own): only what follows counts.
    const survivorEventsBefore = (await stack.transitions(survivor.meetingId)).length;

    // The lost bot's own Redis user (issue 27): it must not outlive the host.
    const [lostContainer] = await containersOn(hostB, lost.meetingId);
    const lostUser = `${stack.api.prefix}:bot:${lostContainer?.Labels[Labels.sessionId]}`;
    expect(await botUsers()).toContain(lostUser);

    // Host B dies: its bots, containerd and engine, and its worker, all at once.
    const lostAt = Date.now();
    // (The worker first: otherwise it would see its bot die and report that before it dies itself.)
    await stack.stopWorker(workers.get(HOST_B)!, 'SIGKILL');
    await hostB.kill();

    const relaunched = await waitForEvent(lost.meetingId, 'relaunched', 60_000);
    expect(relaunched).toMatchObject({ from: 'active', to: 'active', source: 'worker' });
    expect(relaunched.detail).toContain(`worker ${HOST_B} on Docker host host-b`);
    const rejoined = await waitForEvent(lost.meetingId, 'rejoined', 180_000);
    expect(await workerOf(lost.meetingId)).toBe(HOST_A);
    // Host A's reconciler revoked the lost bot's credential (its meeting has a new bot, it is silent).
    await expect.poll(botUsers, { timeout: 30_000 }).not.toContain(lostUser);
    await expect
      .poll(
        async () =>
          (await segmentsOf(lost.meetingId)).filter((s) => s.is_final && s.created_at > rejoined.createdAt)
            .length,
        { timeout: 120_000 },
      )
      .toBeGreaterThanOrEqual(1);

    // The transcript continues on one time line: every segment's start counts from the same origin.
    const segments = await segmentsOf(lost.meetingId);
    const before = segments.filter((s) => s.created_at < relaunched.createdAt);
    const after = segments.filter((s) => s.created_at > rejoined.createdAt && s.is_final);
    const origins = segments.map((s) => s.absolute_start_time.getTime() - s.start_seconds * 1000);
    expect(Math.max(...origins) - Math.min(...origins)).toBeLessThan(2000);
    const lastBefore = Math.max(...before.map((s) => s.absolute_end_time.getTime()));
    const firstAfter = Math.min(...after.map((s) => s.absolute_start_time.getTime()));
    expect(Math.min(...after.map((s) => s.start_seconds))).toBeGreaterThan(
      Math.max(...before.map((s) => s.end_seconds)),
    );
    console.log(
      `[multi-host ${platform}] host lost → relaunched ${((relaunched.createdAt.getTime() - lostAt) / 1000).toFixed(1)} s, ` +
        `→ rejoined ${((rejoined.createdAt.getTime() - lostAt) / 1000).toFixed(1)} s; ` +
        `transcript gap (last segment before → first after) ${((firstAfter - lastBefore) / 1000).toFixed(1)} s; ${rejoined.detail}`,
    );

    // Host A's own meeting never noticed: no event since host B died, same container, still active,
    // still transcribing.
    const survivorEvents = await stack.transitions(survivor.meetingId);
    expect(survivorEvents.at(-1)?.to).toBe('active');
    expect(
      survivorEvents.slice(survivorEventsBefore).map(({ from, to, source, reason, detail }) => ({
        from,
        to,
        source,
        reason,
        detail,
      })),
    ).toEqual([]);
    expect((await containersOn(undefined, survivor.meetingId)).map((c) => c.Id)).toEqual([
      survivorContainer!.Id,
    ]);
    expect((await segmentsOf(survivor.meetingId)).length).toBeGreaterThan(survivorBefore);

    // Host A is full (two bots) and host B is gone: a new launch waits, nobody takes it.
    const waiting = await meetingWithBot({
      platform,
      admission: { policy: 'open' },
      participants: [],
    });
    await new Promise((resolve) => setTimeout(resolve, 8000));
    expect(
      (await stack.api.request('GET', `/meetings/${waiting.meetingId}`, { key: stack.user.key })).body.status,
    ).toBe('requested');
    expect(await containersOn(undefined, waiting.meetingId)).toEqual([]);

    // Host B comes back: its stale bot is removed (the meeting moved) and it takes the waiting launch.
    await hostB.restart();
    startWorkerOn(HOST_B);
    await expect.poll(() => containersOn(hostB, lost.meetingId), { timeout: 60_000 }).toEqual([]);
    await stack.waitForStatus(waiting.meetingId, ['joining', 'awaiting_admission', 'active'], 120_000);
    expect(await workerOf(waiting.meetingId)).toBe(HOST_B);

    for (const meeting of [waiting, lost, survivor]) {
      const stop = await stack.api.request('DELETE', `/bots/${platform}/${meeting.nativeId}`, {
        key: stack.user.key,
      });
      expect(stop.status).toBeLessThan(300);
    }
    for (const meeting of [waiting, lost, survivor]) {
      expect((await stack.waitForStatus(meeting.meetingId, ['completed', 'failed'], 120_000)).at(-1)).toBe(
        'completed',
      );
    }
    for (const meeting of [waiting, lost, survivor]) {
      await expect
        .poll(
          async () => [
            ...(await containersOn(undefined, meeting.meetingId)),
            ...(await containersOn(hostB, meeting.meetingId)),
          ],
          {
            timeout: 90_000,
          },
        )
        .toEqual([]);
    }
  });
});
