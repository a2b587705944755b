import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApi, TestUser } from '../../support/api.js';
import type { FakeBots } from '../../support/fake-bot.js';
import { openLiveSocket, socketUrl } from '../../support/live-socket.js';
import { openSse } from '../../support/sse.js';
import { startWebhookWorld, type WebhookWorld } from '../../support/webhook-service.js';

let world: WebhookWorld;
let api: TestApi;
let bots: FakeBots;
let user: TestUser;

beforeAll(async () => {
  world = await startWebhookWorld();
  ({ api, bots } = world);
  user = await api.createUser({ maxConcurrentBots: 20 });
});
afterAll(() => world.close());

const key = () => ({ key: user.key });
const base = Date.UTC(2026, 10, 22, 9);
const iso = (seconds: number) => new Date(base + seconds * 1000).toISOString();

describe('participant events from the bots', () => {
  it('are stored once per change (redelivered or repeated by a relaunched bot), listed, streamed, sent as webhooks and make the participant list', async () => {
    const endpoint = await world.receiver();
    const { meetingId, sessionId } = await bots.startMeeting(user, 'par-tici-pan', {
      webhook_url: endpoint.url,
    });
    await bots.event(meetingId, sessionId, 'joining');
    await bots.event(meetingId, sessionId, 'awaiting_admission');
    await bots.event(meetingId, sessionId, 'active');
    const sse = await openSse(`${api.baseUrl}/transcripts/google_meet/par-tici-pan/stream`, {
      'X-API-Key': user.key,
    });

    const first = [
      { seq: 0, type: 'participant.joined', name: 'Ann', seconds: 1 },
      { seq: 1, type: 'participant.joined', name: 'Bob', seconds: 1 },
      { seq: 2, type: 'participant.speech_started', name: 'Ann', seconds: 2 },
      { seq: 3, type: 'participant.speech_stopped', name: 'Ann', seconds: 6.5 },
      { seq: 4, type: 'participant.joined', name: 'Cleo', seconds: 10 },
      { seq: 5, type: 'participant.left', name: 'Bob', seconds: 20 },
    ] as const;
    for (const change of first) await bots.participant(meetingId, sessionId, change);
    // The same message delivered again (same session and number): nothing new.
    await bots.participant(meetingId, sessionId, first[5]);
    // A relaunched bot sees Ann and Cleo again: no event; Bob coming back is one.
    const relaunched = `${sessionId}-relaunch`;
    await bots.participant(meetingId, relaunched, {
      seq: 0,
      type: 'participant.joined',
      name: 'Ann',
      seconds: 30,
    });
    await bots.participant(meetingId, relaunched, {
      seq: 1,
      type: 'participant.joined',
      name: 'Cleo',
      seconds: 30,
    });
    await bots.participant(meetingId, relaunched, {
      seq: 2,
      type: 'participant.joined',
      name: 'Bob',
      seconds: 31,
    });

    const events = async () =>
      (await api.request('GET', `/meetings/${meetingId}/events`, key())).body.participant_events ?? [];
    await expect.poll(async () => (await events()).length, { timeout: 20_000 }).toBe(7);
    const listed = await events();
    expect(
      listed.map((e: { type: string; name: string; start: number }) => [e.type, e.name, e.start]),
    ).toEqual([
      ['participant.joined', 'Ann', 1],
      ['participant.joined', 'Bob', 1],
      ['participant.speech_started', 'Ann', 2],
      ['participant.speech_stopped', 'Ann', 6.5],
      ['participant.joined', 'Cleo', 10],
      ['participant.left', 'Bob', 20],
      ['participant.joined', 'Bob', 31],
    ]);
    expect(listed[0]).toEqual({
      id: expect.any(Number),
      type: 'participant.joined',
      name: 'Ann',
      start: 1,
      at: iso(1),
    });
    // The status changes come on their own stream: the meeting's `active` may land after the participants.
    await expect
      .poll(
        async () =>
          (await api.request('GET', `/meetings/${meetingId}/events`, key())).body.events.map(
            (e: { to: string }) => e.to,
          ),
        { timeout: 20_000 },
      )
      .toContain('active');

    const detail = (await api.request('GET', `/meetings/${meetingId}`, key())).body;
    expect(detail.participants).toEqual([
      { name: 'Ann', first_seen: iso(1), last_seen: expect.any(String) },
      { name: 'Bob', first_seen: iso(1), last_seen: expect.any(String) },
      { name: 'Cleo', first_seen: iso(10), last_seen: expect.any(String) },
    ]);
    // Still there while the meeting runs: seen until now.
    expect(Date.parse(detail.participants[0].last_seen)).toBeGreaterThan(base + 30_000);

    await sse.waitFor((got) => got.filter((e) => e.event === 'participant').length === 7, 20_000);
    const streamed = sse.events.filter((e) => e.event === 'participant');
    expect(streamed.map((e) => e.data)).toEqual(
      [...listed].sort((a: { id: number }, b: { id: number }) => a.id - b.id),
    );
    expect(streamed.at(-1)?.id).toMatch(/^\d+-\d+-\d+-\d+$/);
    // Resuming after the fourth participant event sends the last three only.
    const resumed = await openSse(`${api.baseUrl}/transcripts/google_meet/par-tici-pan/stream`, {
      'X-API-Key': user.key,
      'Last-Event-ID': streamed[3]!.id!,
    });
    await resumed.waitFor((got) => got.filter((e) => e.event === 'participant').length >= 3, 20_000);
    expect(resumed.events.filter((e) => e.event === 'participant').map((e) => e.data.name)).toEqual([
      'Cleo',
      'Bob',
      'Bob',
    ]);
    resumed.close();
    sse.close();

    // The WebSocket feed: one `participant.<type>` frame per event, the name on top, the event in `payload`.
    const socket = await openLiveSocket(socketUrl(api.baseUrl), { headers: { 'X-API-Key': user.key } });
    socket.send({ action: 'subscribe', meetings: [{ meeting_id: meetingId }] });
    const participantFrames = () => socket.frames.filter((f) => String(f.type).startsWith('participant.'));
    await socket.waitFor(() => participantFrames().length === 7);
    expect(participantFrames().map((f) => [f.type, f.name, f.payload.id])).toEqual(
      streamed.map((e) => [e.data.type, e.data.name, e.data.id]),
    );
    // The cursors' participant part (the last): their other parts move with what else each feed sent.
    const participantPart = (cursor: unknown) => String(cursor).split('-').at(-1);
    expect(participantPart(participantFrames().at(-1)?.cursor)).toBe(participantPart(streamed.at(-1)?.id));
    socket.close();

    await expect
      .poll(() => endpoint.accepted().filter((r) => String(r.json?.type).startsWith('participant.')).length, {
        timeout: 20_000,
      })
      .toBe(7);
    const hooks = endpoint.accepted().filter((r) => String(r.json?.type).startsWith('participant.'));
    expect(hooks.map((r) => [r.json.type, r.json.data.participant_event.name])).toEqual(
      expect.arrayContaining([
        ['participant.left', 'Bob'],
        ['participant.speech_started', 'Ann'],
      ]),
    );
    expect(hooks[0]!.json.data.meeting).toEqual({
      id: meetingId,
      platform: 'google_meet',
      native_meeting_id: 'par-tici-pan',
    });

    // Another user's key: 404 for the events and the meeting.
    const other = await api.createUser();
    for (const path of [`/meetings/${meetingId}/events`, `/meetings/${meetingId}`]) {
      const foreign = await api.request('GET', path, { key: other.key });
      expect(foreign.status, path).toBe(404);
      expect(foreign.body).toEqual({ error: 'Meeting not found' });
    }

    // Deleted with the meeting.
    await api.request('DELETE', '/bots/google_meet/par-tici-pan', key());
    const deleted = await api.request('DELETE', '/meetings/google_meet/par-tici-pan', key());
    expect(deleted.status).toBe(200);
    for (const table of ['participant_events', 'meeting_participants']) {
      const rows = await api.database.db(table).where({ meeting_id: meetingId }).count('* as n');
      expect(Number(rows[0]?.n), table).toBe(0);
    }
  });
});
