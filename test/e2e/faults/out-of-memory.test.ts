import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedSegments, storedSegments, transcriptProblems } from '../../support/fault-audit.js';
import { createTestRedis } from '../../support/redis.js';
import { type Stack, startStack } from '../../support/stack.js';
import { expectNoContainers } from './meeting.js';

/**
 * A bot killed by its container's memory limit ends the meeting `failed` with reason
 * `out_of_memory` (so the operator knows to raise BOT_MEMORY_MB), not as an unexplained crash,
 * whichever process the kernel kills: the meeting page's renderer (the usual victim: the bot sees a
 * crash and reads its cgroup's OOM-kill count) or the bot's own process (no final event: the worker
 * reads Docker's OOMKilled). What it published before stays, once, and its container is removed.
 */

const execFileAsync = promisify(execFile);
let stack: Stack;
let redis: Redis;

beforeAll(async () => {
  stack = await startStack({ workerEnv: { RECONCILE_INTERVAL_SECONDS: '2', BOT_MEMORY_MB: '900' } });
  stack.startWorker('oom-worker');
  redis = createTestRedis();
});
afterAll(async () => {
  redis?.disconnect();
  await stack?.close();
});

/** The last transition once the meeting ended, with every segment the bot published stored once. */
async function endedAndAudited(meetingId: number) {
  const seen = await stack.waitForStatus(meetingId, ['failed', 'completed'], 180_000);
  const last = (await stack.transitions(meetingId)).at(-1);
  expect(seen.at(-1), `${last?.reason}: ${last?.detail}`).toBe('failed');
  await expect.poll(() => stack.containersOf(meetingId), { timeout: 60_000 }).toEqual([]);
  const published = await publishedSegments(redis, stack.api.prefix, meetingId);
  const stored = await storedSegments(stack.api.database.db, meetingId);
  expect(published.size).toBeGreaterThanOrEqual(1);
  expect(transcriptProblems(published, stored)).toEqual([]);
  return { last, published: published.size, stored: stored.length };
}

/** Waits until the meeting's first segment is stored: the bot was transcribing when memory ran out. */
async function firstSegmentStored(meetingId: number): Promise<void> {
  await expect
    .poll(() => stack.api.database.db('transcript_segments').where({ meeting_id: meetingId }), {
      timeout: 90_000,
      interval: 300,
    })
    .not.toEqual([]);
}

describe('a bot over its memory limit', () => {
  it('whose meeting page outgrows it ends failed with out_of_memory (from the bot), keeping its transcript', async () => {
    const { meetingId } = await stack.createMeetingAndBot({
      platform: 'google_meet',
      admission: { policy: 'after', delaySeconds: 1 },
      // The page starts growing 12 s into the call, after the first words.
      traps: { memoryHogAfterSeconds: 12 },
      participants: [
        {
          name: 'Alice Archer',
          voice: 'slt',
          utterances: [{ at: 1, text: 'good morning everyone and welcome to the weekly review' }],
        },
      ],
    });
    await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
    const { last, published, stored } = await endedAndAudited(meetingId);
    expect(last).toMatchObject({ source: 'bot', reason: 'out_of_memory' });
    expect(last?.detail).toMatch(/memory limit/);
    console.log(
      `[out of memory, renderer] ${last?.source}: ${last?.reason}: ${last?.detail?.slice(0, 200)}; ` +
        `${published} published, ${stored} stored`,
    );
  });

  it("whose own process the kernel kills ends failed with out_of_memory (from Docker's OOMKilled), keeping its transcript", async () => {
    const { meetingId } = await stack.createMeetingAndBot({
      platform: 'google_meet',
      admission: { policy: 'open' },
      participants: [
        {
          name: 'Bob Baker',
          voice: 'rms',
          utterances: [{ at: 1, text: 'thank you I finished the quarterly report yesterday' }],
        },
      ],
    });
    expect((await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000)).at(-1)).toBe(
      'active',
    );
    await firstSegmentStored(meetingId);
    const [container] = await stack.containersOf(meetingId);
    // Make the bot's Node process the kernel's choice (a process may raise its own kind's score
    // without privileges), then fill the container's memory until that process is gone.
    const push = [
      'pid=$(for p in /proc/[0-9]*; do',
      "  tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^node .*dist/bot/main.js' && basename $p;",
      'done | head -n 1)',
      'echo 1000 > /proc/$pid/oom_score_adj',
      'exec node -e "const held = []; const grow = () => { try { process.kill($pid, 0) } catch { process.exit(0) }',
      'held.push(Buffer.alloc(16 << 20, 1)); setTimeout(grow, 20) }; grow()"',
    ].join('\n');
    await execFileAsync('docker', ['exec', container!.Id, 'sh', '-c', push]).catch(() => undefined);

    const { last, published, stored } = await endedAndAudited(meetingId);
    expect(last).toMatchObject({ source: 'worker', reason: 'out_of_memory' });
    expect(last?.detail).toMatch(/^killed for its memory limit \(BOT_MEMORY_MB\), exit code 137/);
    console.log(
      `[out of memory, bot process] ${last?.source}: ${last?.reason}: ${last?.detail?.split('\n')[0]}; ` +
        `${published} published, ${stored} stored`,
    );
  });

  it('leaves no bot container behind', async () => {
    await expectNoContainers(stack);
  });
});
