import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateMeetingInput } from '../../../simulator/client.js';
import { type Stack, startStack } from '../../support/stack.js';

// Blocked, said exactly (issue 34): the screens that keep a bot out end with their own reason, and a
// bot-detection refusal is retried (here once, after 2 s) through the real API, worker, bot container
// and simulator, on both platforms at once.

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
  stack.startWorker('blocked-w1', {
    BOT_RETRY_ATTEMPTS: '1',
    BOT_RETRY_BACKOFF_SECONDS: '2',
    BOT_SLOTS: '6',
  });
});
afterAll(async () => {
  await stack?.close();
});

interface MeetingEvent {
  from: string | null;
  to: string;
  source: string;
  reason: string | null;
  detail: string | null;
}

async function eventsOf(meetingId: number): Promise<MeetingEvent[]> {
  const response = await stack.api.request('GET', `/meetings/${meetingId}/events`, { key: stack.user.key });
  expect(response.status).toBe(200);
  return response.body.events;
}

const SPEAKER = 'Alice Archer';

function meeting(
  platform: 'google_meet' | 'teams',
  refusal: CreateMeetingInput['refusal'],
): CreateMeetingInput {
  return {
    platform,
    admission: { policy: 'after', delaySeconds: 1 },
    refusal,
    participants: [
      {
        name: SPEAKER,
        voice: 'slt',
        utterances: [{ at: 2, text: 'good morning everyone and welcome to the weekly review' }],
      },
    ],
  };
}

describe.concurrent.each(['google_meet', 'teams'] as const)('%s', (platform) => {
  it('a bot-detection refusal on the first attempt only: blocked_by_platform, retried, then in and transcribing', async () => {
    const { meetingId, nativeId } = await stack.createMeetingAndBot(
      meeting(platform, { screen: 'bot_detection', attempts: 1 }),
    );
    const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
    expect(seen.at(-1)).toBe('active');
    const refusals = (await eventsOf(meetingId)).filter((event) => event.reason === 'blocked_by_platform');
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ source: 'bot' });
    expect(refusals[0]?.from).toBe(refusals[0]?.to);
    expect(refusals[0]?.detail).toMatch(/^attempt 1 of 2: .+; attempt 2 in 2 s$/);

    await expect
      .poll(
        async () => {
          const transcript = await stack.api.request('GET', `/transcripts/${platform}/${nativeId}`, {
            key: stack.user.key,
          });
          return transcript.body.segments.some((segment: { speaker: string }) => segment.speaker === SPEAKER);
        },
        { timeout: 90_000, interval: 1000 },
      )
      .toBe(true);
    const stop = await stack.api.request('DELETE', `/bots/${platform}/${nativeId}`, { key: stack.user.key });
    expect(stop.status).toBe(202);
  });

  it('refused on every attempt: failed with blocked_by_platform once the retry ran out, both attempts on the event log', async () => {
    const { meetingId } = await stack.createMeetingAndBot(meeting(platform, { screen: 'bot_detection' }));
    const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
    expect(seen.at(-1)).toBe('failed');
    const refusals = (await eventsOf(meetingId)).filter((event) => event.reason === 'blocked_by_platform');
    expect(refusals.map((event) => [event.to, event.detail?.replace(/:.*/, '')])).toEqual([
      [refusals[0]?.from, 'attempt 1 of 2'],
      ['failed', 'attempt 2 of 2'],
    ]);
    expect((await stack.simulator.getMeeting((await nativeIdOf(meetingId)) ?? '')).bot).toMatchObject({
      state: 'blocked',
      refusal: 'bot_detection',
    });
  });

  it('a verification screen: failed with verification_required, never retried', async () => {
    const { meetingId } = await stack.createMeetingAndBot(meeting(platform, { screen: 'verification' }));
    const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
    expect(seen.at(-1)).toBe('failed');
    const events = await eventsOf(meetingId);
    expect(events.filter((event) => event.reason === 'verification_required')).toEqual([
      expect.objectContaining({ to: 'failed', source: 'bot' }),
    ]);
    expect(events.some((event) => event.reason === 'blocked_by_platform')).toBe(false);
  });

  it.skipIf(platform !== 'teams')(
    'a wrong passcode: failed with meeting_not_found, not retried (the refusal came before any join request)',
    async () => {
      const created = await stack.simulator.createMeeting({ platform: 'teams', participants: [] });
      const url = new URL(created.url);
      url.searchParams.set('p', 'Wrong1');
      const response = await stack.api.request('POST', '/bots', {
        key: stack.user.key,
        json: { platform: 'teams', native_meeting_id: created.id, passcode: 'Wrong1', meeting_url: url.href },
      });
      expect(response.status, response.text).toBe(201);
      const meetingId = response.body.id as number;
      const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
      expect(seen.at(-1)).toBe('failed');
      const events = await eventsOf(meetingId);
      expect(events.at(-1)).toMatchObject({ to: 'failed', source: 'bot', reason: 'meeting_not_found' });
      expect(events.at(-1)?.detail).toMatch(/wrong passcode/);
      expect(events.some((event) => event.reason === 'blocked_by_platform')).toBe(false);
    },
  );
});

async function nativeIdOf(meetingId: number): Promise<string | undefined> {
  const response = await stack.api.request('GET', `/meetings/${meetingId}`, { key: stack.user.key });
  return response.body.native_meeting_id;
}
