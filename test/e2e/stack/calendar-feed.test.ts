import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IcsServer, icsCalendar, icsEvent, icsUtc } from '../../support/ics-server.js';
import { type Stack, startStack, type WorkerProcess } from '../../support/stack.js';

// Issue 33's end-to-end check of calendar feeds: an event a minute ahead in a feed served on
// 127.0.0.1 brings a real bot (container, Chromium) into a simulated meeting at its time, and the
// meeting is transcribed. The worker polls every 2 s and sends bots 5 s ahead, to keep it short.

const LEAD_SECONDS = 5;
let stack: Stack;
let worker: WorkerProcess;
const ics = new IcsServer();

beforeAll(async () => {
  stack = await startStack({
    workerEnv: { CALENDAR_FEED_POLL_INTERVAL_SECONDS: '2', CALENDAR_FEED_LEAD_SECONDS: String(LEAD_SECONDS) },
  });
  worker = stack.startWorker('calendar-w1');
  await ics.start();
});
afterAll(async () => {
  await stack?.close();
  await ics.close();
});

describe('a calendar feed', () => {
  it('sends a bot into the meeting of an event a minute ahead, at its time, and the meeting is transcribed', async () => {
    const meeting = await stack.simulator.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'after', delaySeconds: 2 },
      participants: [
        {
          name: 'Alice Archer',
          voice: 'slt',
          utterances: [{ at: 1, text: 'good morning everyone and welcome to the weekly review' }],
        },
      ],
    });
    const start = new Date(Math.ceil((Date.now() + 60_000) / 1000) * 1000);
    ics.feeds.set(
      '/team.ics',
      icsCalendar([
        icsEvent([
          'UID:weekly-review@example.com',
          `DTSTART:${icsUtc(start)}`,
          'DURATION:PT30M',
          'SUMMARY:Weekly review',
          `LOCATION:${meeting.url}`,
        ]),
      ]),
    );
    const created = await stack.api.request('POST', '/calendar-feeds', {
      key: stack.user.key,
      json: { url: ics.url('/team.ics'), bot_name: 'Calendar Notetaker' },
    });
    expect(created.status, created.text).toBe(201);
    const feedId = created.body.id as number;

    // The worker polls the feed and schedules the bot, to join LEAD_SECONDS before the start.
    const findBot = async () =>
      (await stack.api.request('GET', '/meetings', { key: stack.user.key })).body.meetings.find(
        (m: { native_meeting_id: string }) => m.native_meeting_id === meeting.id,
      );
    await expect.poll(findBot, { timeout: 30_000, interval: 500 }).toBeDefined();
    const bot = await findBot();
    const joinAt = new Date(start.getTime() - LEAD_SECONDS * 1000);
    expect(bot.status).toBe('requested');
    expect(bot.data.join_at).toBe(joinAt.toISOString());
    const row = await stack.api.database
      .db('meetings')
      .where({ id: bot.id })
      .first('bot_name', 'schedule_key');
    expect(row).toEqual({
      bot_name: 'Calendar Notetaker',
      schedule_key: `feed:${feedId}:weekly-review@example.com`,
    });
    const feed = await stack.api.request('GET', `/calendar-feeds/${feedId}`, { key: stack.user.key });
    expect(feed.body.last_poll).toMatchObject({ ok: true, scheduled: 1 });

    const seen = await stack.waitForStatus(bot.id, ['active', 'failed', 'completed'], 180_000);
    expect(seen.at(-1), worker.output().slice(-3000)).toBe('active');
    const transitions = await stack.transitions(bot.id);
    expect(transitions.map((t) => t.to)).toEqual(['requested', 'joining', 'awaiting_admission', 'active']);
    expect(transitions[0]).toMatchObject({ source: 'calendar', reason: 'bot_scheduled' });
    // Not launched before its time (the database's clock and this one are the same machine's).
    expect(transitions[1]!.createdAt.getTime()).toBeGreaterThanOrEqual(joinAt.getTime() - 100);

    await stack.simulator.waitForSpeechDone(meeting.id, { timeoutMs: 60_000 });
    await expect
      .poll(
        async () => {
          const transcript = await stack.api.request('GET', `/transcripts/google_meet/${meeting.id}`, {
            key: stack.user.key,
          });
          return transcript.body.segments?.some(
            (s: { speaker: string; text: string }) => s.speaker === 'Alice Archer' && /review/.test(s.text),
          );
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true);

    // Polled again meanwhile: still the one bot for the one occurrence.
    const again = (await stack.api.request('GET', '/meetings', { key: stack.user.key })).body.meetings;
    expect(
      again.filter((m: { native_meeting_id: string }) => m.native_meeting_id === meeting.id),
    ).toHaveLength(1);

    const stop = await stack.api.request('DELETE', `/bots/google_meet/${meeting.id}`, {
      key: stack.user.key,
    });
    expect(stop.status).toBe(202);
    await expect.poll(() => stack.containersOf(bot.id), { timeout: 60_000, interval: 500 }).toEqual([]);
  });
});
