import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

interface Segment {
  speaker: string;
  absolute_start_time: string;
}

describe('a worker killed with SIGKILL mid-meeting', () => {
  it('leaves its bot transcribing; the restarted worker re-adopts it and no segment is lost', async () => {
    const first = stack.startWorker('restart-w1');
    const { meetingId, nativeId } = await stack.createMeetingAndBot({
      platform: 'google_meet',
      admission: { policy: 'open' },
      participants: [
        {
          name: 'Erin',
          voice: 'slt',
          utterances: [{ at: 1, text: 'this is said while the worker is alive' }],
        },
        {
          name: 'Frank',
          voice: 'rms',
          utterances: [{ at: 9, text: 'and this is said while no worker is running' }],
        },
        {
          name: 'Grace',
          voice: 'awb',
          utterances: [{ at: 20, text: 'finally this comes after the worker is back' }],
        },
      ],
    });
    expect((await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000)).at(-1)).toBe(
      'active',
    );
    const [before] = await stack.containersOf(meetingId);
    expect(before?.State).toBe('running');

    await stack.stopWorker(first, 'SIGKILL');
    // The bot goes on: Frank's words are spoken and heard with no worker alive.
    await stack.simulator.waitFor(
      nativeId,
      (meeting) => meeting.utterances.find((u) => u.speaker === 'Frank')?.status === 'played',
      "Frank's utterance",
      { timeoutMs: 60_000 },
    );
    const [during] = await stack.containersOf(meetingId);
    expect(during?.Id).toBe(before?.Id);
    expect(during?.State).toBe('running');

    const second = stack.startWorker('restart-w1');
    const played = await stack.simulator.waitForSpeechDone(nativeId, { timeoutMs: 90_000 });
    expect(played.utterances.map((u) => u.status)).toEqual(['played', 'played', 'played']);

    // Re-adopted, not relaunched: the same container, still one, the meeting still active.
    const after = await stack.containersOf(meetingId);
    expect(after.map((c) => c.Id)).toEqual([before?.Id]);
    const meeting = await stack.api.request('GET', `/meetings/${meetingId}`, { key: stack.user.key });
    expect(meeting.body.status).toBe('active');
    expect(second.output()).toMatch(/re-adopted a running bot/);

    const stop = await stack.api.request('DELETE', `/bots/google_meet/${nativeId}`, { key: stack.user.key });
    expect(stop.status).toBe(202);
    await expect.poll(() => stack.containersOf(meetingId), { timeout: 60_000, interval: 500 }).toEqual([]);

    const transcript = async () =>
      (await stack.api.request('GET', `/transcripts/google_meet/${nativeId}`, { key: stack.user.key })).body
        .segments as Segment[];
    await expect
      .poll(async () => new Set((await transcript()).map((s) => s.speaker)), {
        timeout: 30_000,
        interval: 500,
      })
      .toEqual(new Set(['Erin', 'Frank', 'Grace']));
    for (const utterance of played.utterances) {
      const startedAt = Date.parse(utterance.startedAt!);
      expect(
        (await transcript()).some(
          (s) =>
            s.speaker === utterance.speaker && Math.abs(Date.parse(s.absolute_start_time) - startedAt) < 1500,
        ),
        `segment for ${utterance.speaker}`,
      ).toBe(true);
    }
  });
});
