import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transcriptSegmentMessage } from '../../../shared/contract/events.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botSegmentsStream } from '../../../shared/contract/streams.js';
import { type OwnServer, startOwnPostgres, startOwnRedis } from '../../support/own-servers.js';
import { createTestRedis } from '../../support/redis.js';
import { type Stack, startStack } from '../../support/stack.js';

/**
 * Redis, then Postgres, restarted while a bot transcribes a meeting through the whole stack (each
 * server owned by the test, so only it restarts). Afterwards the meeting is still active, every
 * segment the bot published is stored exactly once, the stop completes it, and no container is left.
 */

const SENTENCES = [
  'the quarterly report is finished and ready for review',
  'we should move the release to the second week of march',
  'please send the updated budget to the finance team today',
  'let us schedule a follow up meeting on thursday afternoon',
];

const speech = Array.from({ length: 16 }, (_, index) => ({ at: 1 + index * 6, text: SENTENCES[index % 4]! }));

interface Row {
  segment_id: string;
  text: string;
  is_final: boolean;
  absolute_start_time: Date;
  absolute_end_time: Date;
  created_at: Date;
}

async function runThroughRestart(stack: Stack, redisUrl: string, server: OwnServer, label: string) {
  stack.startWorker(`${label}-worker`);
  const { meetingId, nativeId, platform } = await stack.createMeetingAndBot({
    platform: 'google_meet',
    admission: { policy: 'after', delaySeconds: 1 },
    participants: [{ name: 'Alice Archer', voice: 'slt', utterances: speech }],
  });
  await stack.waitForStatus(meetingId, ['active'], 180_000);
  const [container] = await stack.containersOf(meetingId);
  const rows = (): Promise<Row[]> =>
    stack.api.database
      .db('transcript_segments')
      .where({ meeting_id: meetingId })
      .orderBy('absolute_start_time');
  await expect
    .poll(async () => (await rows()).filter((row) => row.is_final).length, { timeout: 120_000 })
    .toBeGreaterThanOrEqual(1);

  const restartedAt = Date.now();
  await server.restart({ downForMs: 3000 });
  const back = Date.now();
  const finalAtRestart = (await rows()).filter((row) => row.is_final).length;
  await expect
    .poll(async () => (await rows()).filter((row) => row.is_final).length, { timeout: 120_000 })
    .toBeGreaterThanOrEqual(finalAtRestart + 3);
  console.log(
    `[${label} restart] down for ${((back - restartedAt) / 1000).toFixed(1)} s (stop, 3 s away, start)`,
  );

  // The meeting never noticed: still active, same bot.
  expect((await stack.transitions(meetingId)).map((event) => event.to)).toEqual([
    'requested',
    'joining',
    'awaiting_admission',
    'active',
  ]);
  expect((await stack.containersOf(meetingId)).map((c) => c.Id)).toEqual([container!.Id]);

  const stop = await stack.api.request('DELETE', `/bots/${platform}/${nativeId}`, { key: stack.user.key });
  expect(stop.status).toBe(202);
  expect((await stack.waitForStatus(meetingId, ['completed', 'failed'])).at(-1)).toBe('completed');
  await expect.poll(() => stack.containersOf(meetingId), { timeout: 90_000 }).toEqual([]);

  // Every segment the bot published is stored, once; nothing was stored twice under another id.
  const redis: Redis = createTestRedis(redisUrl);
  try {
    const published = new Set<string>();
    await expect
      .poll(
        async () => {
          published.clear();
          for (const [, fields] of await redis.xrange(botSegmentsStream(stack.api.prefix), '-', '+')) {
            const decoded = decodeStreamEntry(transcriptSegmentMessage, fields);
            if (decoded.ok && decoded.value.meetingId === meetingId) published.add(decoded.value.segmentId);
          }
          return [...published].sort();
        },
        { timeout: 30_000 },
      )
      .toEqual((await rows()).map((row) => row.segment_id).sort());
    const stored = await rows();
    const lags = stored
      .filter((row) => row.is_final)
      .map((row) => (row.created_at.getTime() - row.absolute_end_time.getTime()) / 1000);
    console.log(
      `[${label} restart] ${published.size} segments published, ${stored.length} stored; ` +
        `end of speech → committed: worst ${Math.max(...lags).toFixed(1)} s, median ${lags.sort((a, b) => a - b)[Math.floor(lags.length / 2)]?.toFixed(1)} s`,
    );
    const keys = stored.map((row) => `${row.absolute_start_time.toISOString()} ${row.text}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(published.size).toBeGreaterThan(finalAtRestart);
  } finally {
    redis.disconnect();
  }
}

describe('Redis restarted mid-meeting', () => {
  let redis: OwnServer;
  let stack: Stack;
  beforeAll(async () => {
    redis = await startOwnRedis();
    stack = await startStack({ redisUrl: redis.url, workerEnv: { RECONCILE_INTERVAL_SECONDS: '2' } });
  });
  afterAll(async () => {
    await stack?.close();
    await redis?.stop();
  });

  it('keeps the meeting, its bot and every published segment', async () => {
    await runThroughRestart(stack, redis.url, redis, 'redis');
  });
});

describe('Postgres restarted mid-meeting', () => {
  let postgres: OwnServer;
  let stack: Stack;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    stack = await startStack({ postgresUrl: postgres.url, workerEnv: { RECONCILE_INTERVAL_SECONDS: '2' } });
  });
  afterAll(async () => {
    await stack?.close();
    await postgres?.stop();
  });

  it('keeps the meeting, its bot and every published segment', async () => {
    const { TEST_REDIS_URL } = await import('../../support/env.js');
    await runThroughRestart(stack, TEST_REDIS_URL, postgres, 'postgres');
  });
});
