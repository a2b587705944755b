import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../../support/stack.js';

/**
 * A bot killed by its container's memory limit ends the meeting `failed` with reason
 * `out_of_memory` (so the operator knows to raise BOT_MEMORY_MB), not as an unexplained crash;
 * what it transcribed before stays, and its container is removed.
 */

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ workerEnv: { RECONCILE_INTERVAL_SECONDS: '2', BOT_MEMORY_MB: '900' } });
  stack.startWorker('oom-worker');
});
afterAll(() => stack?.close());

describe('a bot over its memory limit', () => {
  it('ends failed with out_of_memory, keeps the transcript so far and leaves no container', async () => {
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
    const seen = await stack.waitForStatus(meetingId, ['failed', 'completed'], 180_000);
    const last = (await stack.transitions(meetingId)).at(-1);
    expect(seen.at(-1), `${last?.reason}: ${last?.detail}`).toBe('failed');
    expect(last?.reason, last?.detail ?? '').toBe('out_of_memory');
    expect(last?.detail).toMatch(/memory limit/);
    console.log(`[out of memory] ${last?.source}: ${last?.reason}: ${last?.detail?.slice(0, 300)}`);
    const segments = await stack.api.database.db('transcript_segments').where({ meeting_id: meetingId });
    expect(segments.length).toBeGreaterThanOrEqual(1);
    await expect.poll(() => stack.containersOf(meetingId), { timeout: 60_000 }).toEqual([]);
  });
});
