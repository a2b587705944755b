import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Labels } from '../../../worker/runtime/bot-runtime.js';
import { type DockerEngine, startDockerEngine } from '../../support/docker-engine.js';
import { publishedSegments } from '../../support/fault-audit.js';
import { createTestRedis } from '../../support/redis.js';
import { type Stack, startStack } from '../../support/stack.js';

/**
 * The Docker engine a worker drives is restarted mid-meeting (an upgrade, a daemon config change).
 * With live restore (docs/deployment.md and docs/operations.md recommend it) the bot keeps running through
 * the restart: the meeting stays active with the same container, its transcript keeps every segment
 * the bot published, and afterwards the worker still sees the engine (the stop removes the container).
 * The engine is one the test starts, so the machine's own engine is never touched.
 */

const BOT_IMAGE = process.env.BOT_IMAGE ?? 'meetbot/bot:latest';
let stack: Stack;
let engine: DockerEngine;

const SENTENCES = [
  'the quarterly report is finished and ready for review',
  'we should move the release to the second week of march',
  'please send the updated budget to the finance team today',
  'let us schedule a follow up meeting on thursday afternoon',
];

beforeAll(async () => {
  engine = await startDockerEngine('restarted', { liveRestore: true });
  stack = await startStack({ workerEnv: { RECONCILE_INTERVAL_SECONDS: '2', WORKER_METRICS_PORT: '0' } });
  await engine.copyImage(BOT_IMAGE);
  stack.startWorker('engine-restart-worker', { DOCKER_HOST: engine.host });
}, 600_000);

afterAll(async () => {
  await stack?.close();
  await engine?.stop();
});

describe('the Docker engine restarted mid-meeting', () => {
  it('keeps the bot, the meeting and every segment, and the worker keeps managing the engine', async () => {
    const utterances = Array.from({ length: 20 }, (_, index) => ({
      at: 1 + index * 6,
      text: SENTENCES[index % SENTENCES.length]!,
    }));
    const { meetingId, nativeId, platform } = await stack.createMeetingAndBot({
      platform: 'google_meet',
      admission: { policy: 'after', delaySeconds: 1 },
      participants: [{ name: 'Alice Archer', voice: 'slt', utterances }],
    });
    await stack.waitForStatus(meetingId, ['active'], 180_000);
    const containers = () =>
      engine.docker.listContainers({
        all: true,
        filters: { label: [`${Labels.deployment}=${stack.api.prefix}`, `${Labels.meetingId}=${meetingId}`] },
      });
    const [before] = await containers();
    expect(before?.State).toBe('running');
    const finalSegments = async () =>
      stack.api.database
        .db('transcript_segments')
        .where({ meeting_id: meetingId, is_final: true })
        .count({ n: '*' });
    await expect
      .poll(async () => Number((await finalSegments())[0]?.n), { timeout: 120_000 })
      .toBeGreaterThanOrEqual(1);

    const restartStarted = Date.now();
    await engine.shutdown();
    await engine.restart();
    const restartSeconds = (Date.now() - restartStarted) / 1000;
    const segmentsAtRestart = Number((await finalSegments())[0]?.n);

    // Same container, still running, meeting still active, transcript still growing.
    const [after] = await containers();
    expect(after?.Id).toBe(before?.Id);
    expect(after?.State).toBe('running');
    await expect
      .poll(async () => Number((await finalSegments())[0]?.n), { timeout: 120_000 })
      .toBeGreaterThan(segmentsAtRestart);
    expect((await stack.transitions(meetingId)).map((event) => event.to)).toEqual([
      'requested',
      'joining',
      'awaiting_admission',
      'active',
    ]);
    console.log(`[engine restart] dockerd down and back in ${restartSeconds.toFixed(1)} s; bot kept running`);

    // After the restart the worker still drives the engine: a stop ends the bot and removes it.
    const stop = await stack.api.request('DELETE', `/bots/${platform}/${nativeId}`, { key: stack.user.key });
    expect(stop.status).toBe(202);
    expect((await stack.waitForStatus(meetingId, ['completed', 'failed'])).at(-1)).toBe('completed');
    await expect.poll(containers, { timeout: 90_000 }).toEqual([]);

    // Every segment the bot published (the segments stream) is stored, and nothing else.
    const redis = createTestRedis();
    try {
      const published = new Set((await publishedSegments(redis, stack.api.prefix, meetingId)).keys());
      const stored: string[] = await stack.api.database
        .db('transcript_segments')
        .where({ meeting_id: meetingId })
        .pluck('segment_id');
      expect(published.size).toBeGreaterThan(segmentsAtRestart);
      expect(new Set(stored)).toEqual(published);
    } finally {
      redis.disconnect();
    }
  });
});
