import { afterAll, beforeAll, describe, it } from 'vitest';
import { type Stack, startStack } from '../../support/stack.js';
import { WebhookReceiver } from '../../support/webhook-receiver.js';

/**
 * Issue 34 part 3, per platform on one stack: a scripted meeting where one participant leaves early
 * and one joins late; the bot's participant events (joined, left, speech started and stopped) on
 * GET /meetings/{id}/events and as webhooks, and the participant list on GET /meetings/{id}.
 */

let stack: Stack;
const receiver = new WebhookReceiver();

beforeAll(async () => {
  stack = await startStack();
  stack.startWorker('participant-events-w1');
  await receiver.start();
});
afterAll(async () => {
  await stack?.close();
  await receiver.close();
});

interface ParticipantEvent {
  id: number;
  type: string;
  name: string;
  start: number;
  at: string;
}

const STAYS = 'Alice Archer';
const LEAVES = 'Bob Baker';
const LATE = 'Carol Chen';

describe.concurrent.each(['google_meet', 'teams'] as const)('%s: participants as events', (platform) => {
  it('reports who joined, left and spoke, exactly once each change, and lists who was there', async ({
    expect,
  }) => {
    const { meetingId } = await stack.createMeetingAndBot(
      {
        platform,
        admission: { policy: 'open' },
        participants: [
          {
            name: STAYS,
            voice: 'slt',
            utterances: [
              { at: 2, text: 'good morning everyone and welcome to the weekly planning meeting' },
              { at: 30, text: 'thank you all, that is everything for today' },
            ],
          },
          {
            name: LEAVES,
            voice: 'rms',
            leaveAt: 20,
            utterances: [{ at: 9, text: 'I have to leave early today, please send me the notes' }],
          },
          {
            name: LATE,
            voice: 'awb',
            joinAt: 14,
            utterances: [{ at: 23, text: 'sorry I am late, the traffic was terrible this morning' }],
          },
        ],
        endAt: 40,
      },
      { webhook_url: receiver.url },
    );
    const key = { key: stack.user.key };
    const statuses = await stack.waitForStatus(meetingId, ['completed', 'failed'], 240_000);
    expect(statuses).toContain('active');
    expect(statuses.at(-1)).toBe('completed');

    const eventsOf = async () =>
      (await stack.api.request('GET', `/meetings/${meetingId}/events`, key)).body
        .participant_events as ParticipantEvent[];
    const presence = (events: ParticipantEvent[]) =>
      events.filter((e) => e.type === 'participant.joined' || e.type === 'participant.left');
    // The leave is the last presence change: once it is in, so is everything before it. The stretches
    // of speech still open at the meeting's end are closed as the bot leaves, after the meeting
    // completed: wait for those too (each speaker's speech events come in pairs).
    const speechOf = (events: ParticipantEvent[], name: string) =>
      events.filter((e) => e.name === name && e.type.startsWith('participant.speech_'));
    const settled = (events: ParticipantEvent[]) =>
      presence(events).some((e) => e.type === 'participant.left') &&
      [STAYS, LEAVES, LATE].every((name) => speechOf(events, name).length % 2 === 0);
    // Up to 30 s; the checks below then say what is missing.
    let events = await eventsOf();
    for (const deadline = Date.now() + 30_000; !settled(events) && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      events = await eventsOf();
    }
    expect(presence(events).some((e) => e.type === 'participant.left')).toBe(true);

    // Exactly: the two present at admission (one look, either order), the late joiner, the early leaver.
    const moves = presence(events).map((e) => [e.type, e.name]);
    expect(moves).toHaveLength(4);
    expect(moves.slice(0, 2)).toEqual(
      expect.arrayContaining([
        ['participant.joined', STAYS],
        ['participant.joined', LEAVES],
      ]),
    );
    expect(moves.slice(2)).toEqual([
      ['participant.joined', LATE],
      ['participant.left', LEAVES],
    ]);
    const at = (type: string, name: string) => events.find((e) => e.type === type && e.name === name)!;
    // On the transcript's time line, in the script's order: Carol at ~14 s, Bob gone at ~20 s.
    expect(at('participant.joined', LATE).start).toBeGreaterThan(at('participant.joined', STAYS).start);
    expect(at('participant.left', LEAVES).start).toBeGreaterThan(at('participant.joined', LATE).start);
    expect(Date.parse(at('participant.left', LEAVES).at)).toBeGreaterThan(
      Date.parse(at('participant.joined', LATE).at),
    );

    // Every speaker started and stopped speaking; nobody's stretches overlap themselves.
    for (const name of [STAYS, LEAVES, LATE]) {
      const speech = speechOf(events, name);
      expect(speech.length, `${name}'s speech events`).toBeGreaterThanOrEqual(2);
      for (const [index, e] of speech.entries())
        expect(e.type).toBe(index % 2 === 0 ? 'participant.speech_started' : 'participant.speech_stopped');
      expect(speech.length % 2, `${name}'s last stretch closed`).toBe(0);
    }
    // The bot itself is never a participant.
    const bot = (await stack.api.request('GET', `/meetings/${meetingId}`, key)).body;
    expect(events.some((e) => /^Notetaker/.test(e.name))).toBe(false);

    // Who was there, in the order first seen, the bot left out.
    const names = (bot.participants as { name: string }[]).map((p) => p.name);
    expect(new Set(names.slice(0, 2))).toEqual(new Set([STAYS, LEAVES]));
    expect(names.slice(2)).toEqual([LATE]);
    const listed = Object.fromEntries(
      (bot.participants as { name: string; first_seen: string; last_seen: string }[]).map((p) => [p.name, p]),
    );
    expect(listed[LEAVES]!.last_seen).toBe(at('participant.left', LEAVES).at);
    expect(Date.parse(listed[STAYS]!.last_seen)).toBeGreaterThan(Date.parse(listed[LEAVES]!.last_seen));

    // The same events reached the webhook, one delivery each.
    const hooked = () =>
      receiver
        .accepted()
        .filter(
          (r) => String(r.json?.type).startsWith('participant.') && r.json.data.meeting.id === meetingId,
        );
    await expect.poll(() => hooked().length, { timeout: 30_000 }).toBe(events.length);
    expect(
      hooked()
        .map((r) => r.json.data.participant_event.id)
        .sort((a: number, b: number) => a - b),
    ).toEqual(events.map((e) => e.id).sort((a, b) => a - b));
    expect(hooked().every((r) => r.json.type === r.json.data.participant_event.type)).toBe(true);
  });
});
