import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../../support/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  stack.startWorker('failures-w1');
});
afterAll(() => stack?.close());

describe.each(['google_meet', 'teams'] as const)('%s: when a bot cannot do its job', (platform) => {
  it('a denied bot ends failed with admission_denied, and its container is removed', async () => {
    const { meetingId, nativeId } = await stack.createMeetingAndBot({
      platform,
      admission: { policy: 'deny', delaySeconds: 2 },
    });
    const seen = await stack.waitForStatus(meetingId, ['failed', 'completed', 'active'], 180_000);
    expect(seen.at(-1)).toBe('failed');
    const events = await stack.api.request('GET', `/meetings/${meetingId}/events`, { key: stack.user.key });
    expect(events.body.events.at(-1)).toMatchObject({
      to: 'failed',
      source: 'bot',
      reason: 'admission_denied',
    });
    await expect.poll(() => stack.containersOf(meetingId), { timeout: 30_000, interval: 500 }).toEqual([]);
    expect((await stack.simulator.getMeeting(nativeId)).bot.state).toBe('denied');
    const meeting = await stack.api.request('GET', `/meetings/${meetingId}`, { key: stack.user.key });
    expect(meeting.body).toMatchObject({ status: 'failed', bot_container_id: null });
    expect(meeting.body.end_time).not.toBeNull();
  });

  it('a container killed from outside makes the meeting failed within 10 s, with its exit code', async () => {
    const { meetingId } = await stack.createMeetingAndBot({
      platform,
      admission: { policy: 'open' },
      participants: [{ name: 'Carol', utterances: [{ at: 1, text: 'this meeting will be cut short' }] }],
    });
    expect((await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000)).at(-1)).toBe(
      'active',
    );
    const [container] = await stack.containersOf(meetingId);
    expect(container).toBeDefined();

    const killedAt = Date.now();
    await stack.docker.getContainer(container!.Id).kill({ signal: 'SIGKILL' });
    await stack.waitForStatus(meetingId, ['failed', 'completed'], 10_000);
    expect(Date.now() - killedAt).toBeLessThan(10_000);

    const events = await stack.api.request('GET', `/meetings/${meetingId}/events`, { key: stack.user.key });
    const last = events.body.events.at(-1);
    expect(last).toMatchObject({ to: 'failed', source: 'worker', reason: 'container_exited' });
    expect(last.detail).toMatch(/^exit code 137/);
    await expect.poll(() => stack.containersOf(meetingId), { timeout: 30_000, interval: 500 }).toEqual([]);
  });
});
