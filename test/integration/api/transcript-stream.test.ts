import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { FakeBots } from '../../support/fake-bot.js';
import { openSse, type SseEvent } from '../../support/sse.js';

let api: TestApi;
let replica: TestApi;
let user: TestUser;
// The real ingester, as a worker runs it: it commits, then announces the change.
let bots: FakeBots;

beforeAll(async () => {
  api = await startTestApi();
  replica = await startTestApi({ replicaOf: api });
  user = await api.createUser();
  bots = new FakeBots(api);
});
afterAll(async () => {
  await bots.close();
  await replica.close();
  await api.close();
});

const texts = (events: SseEvent[]) => events.filter((e) => e.event === 'segment').map((e) => e.data.text);

/** The transcript a client builds from segment events: latest copy per segment id, chronological. */
function transcriptFrom(events: SseEvent[]) {
  const bySegment = new Map<string, SseEvent['data']>();
  for (const event of events) if (event.event === 'segment') bySegment.set(event.data.segment_id, event.data);
  return [...bySegment.values()]
    .sort((a, b) => a.start - b.start)
    .map(({ segment_id: _id, final: _final, ...segment }) => segment);
}

describe('GET /transcripts/{platform}/{id}/stream', () => {
  it('needs the key and an existing meeting of the user', async () => {
    const anonymous = await api.request('GET', '/transcripts/google_meet/abc-defg-hij/stream');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Unauthorized' });
    const missing = await api.request('GET', '/transcripts/google_meet/zzz-zzzz-zzz/stream', {
      key: user.key,
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Meeting not found' });
  });

  it('sends the current transcript, then segments and status changes as they are committed, then ends', async () => {
    const { meetingId, sessionId } = await bots.startMeeting(user, 'str-eame-ndd');
    await bots.event(meetingId, sessionId, 'active');
    await bots.segment(meetingId, sessionId, { id: 's1', start: 1, text: 'already said' });
    await expect
      .poll(
        async () =>
          (await api.request('GET', '/transcripts/google_meet/str-eame-ndd', { key: user.key })).body.segments
            .length,
      )
      .toBe(1);

    const client = await openSse(`${api.baseUrl}/transcripts/google_meet/str-eame-ndd/stream`, {
      'X-API-Key': user.key,
    });
    expect(client.status).toBe(200);
    await client.waitFor(
      (events) => texts(events).includes('already said') && events.some((e) => e.data.status === 'active'),
    );

    await bots.segment(meetingId, sessionId, {
      id: 's2',
      start: 3,
      text: 'said while watching',
      final: false,
    });
    await client.waitFor((events) => texts(events).includes('said while watching'));
    await bots.segment(meetingId, sessionId, {
      id: 's2',
      start: 3,
      text: 'said while watching, then corrected',
    });
    await client.waitFor((events) => texts(events).includes('said while watching, then corrected'));

    await bots.event(meetingId, sessionId, 'completed', { reason: 'meeting_ended' });
    await client.waitFor((events) =>
      events.some((e) => e.event === 'status' && e.data.status === 'completed'),
    );
    const completed = client.events.find((e) => e.event === 'status' && e.data.status === 'completed');
    expect(completed?.data).toMatchObject({
      previous_status: 'active',
      source: 'bot',
      reason: 'meeting_ended',
    });
    await client.ended;
    expect(client.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });

    const rest = await api.request('GET', '/transcripts/google_meet/str-eame-ndd', { key: user.key });
    expect(transcriptFrom(client.events)).toEqual(rest.body.segments);
  });

  it('resumes from Last-Event-ID without missing anything, on another API replica', async () => {
    const { meetingId, sessionId } = await bots.startMeeting(user, 'res-umes-trm');
    await bots.event(meetingId, sessionId, 'active');
    const first = await openSse(`${api.baseUrl}/transcripts/google_meet/res-umes-trm/stream`, {
      'X-API-Key': user.key,
    });
    await bots.segment(meetingId, sessionId, { id: 'a', start: 1, text: 'first words' });
    await first.waitFor((events) => texts(events).includes('first words'));
    await bots.chat(meetingId, sessionId, { key: 'c1', sender: 'Ann', text: 'chat before', seconds: 1.5 });
    await first.waitFor((events) => events.some((e) => e.event === 'chat' && e.data.text === 'chat before'));
    const lastId = first.events.at(-1)?.id;
    expect(lastId).toMatch(/^\d+-\d+-\d+-\d+$/);
    first.close();

    // While nobody listens: more words, a correction of the first ones, and a chat message.
    await bots.chat(meetingId, sessionId, {
      key: 'c2',
      sender: 'Ann',
      text: 'chat while away',
      seconds: 2.5,
    });
    await bots.segment(meetingId, sessionId, { id: 'b', start: 2, text: 'said while disconnected' });
    await bots.segment(meetingId, sessionId, { id: 'a', start: 1, text: 'first words, corrected' });
    await expect
      .poll(async () =>
        (
          await api.request('GET', '/transcripts/google_meet/res-umes-trm', { key: user.key })
        ).body.segments.map((s: { text: string }) => s.text),
      )
      .toEqual(['first words, corrected', 'said while disconnected']);

    const resumed = await openSse(`${replica.baseUrl}/transcripts/google_meet/res-umes-trm/stream`, {
      'X-API-Key': user.key,
      'Last-Event-ID': lastId!,
    });
    await resumed.waitFor(
      (events) =>
        texts(events).includes('first words, corrected') && texts(events).includes('said while disconnected'),
    );
    expect(texts(resumed.events)).not.toContain('first words');
    expect(resumed.events.filter((e) => e.event === 'status')).toEqual([]);
    await resumed.waitFor((events) => events.some((e) => e.event === 'chat'));
    expect(resumed.events.filter((e) => e.event === 'chat').map((e) => e.data.text)).toEqual([
      'chat while away',
    ]);

    // Live updates reach this replica too (announced through Redis, not process memory).
    await bots.segment(meetingId, sessionId, { id: 'c', start: 4, text: 'live on the replica' });
    await resumed.waitFor((events) => texts(events).includes('live on the replica'));

    await bots.event(meetingId, sessionId, 'completed', { reason: 'stopped' });
    await resumed.ended;
    const rest = await api.request('GET', '/transcripts/google_meet/res-umes-trm', { key: user.key });
    expect(transcriptFrom([...first.events, ...resumed.events])).toEqual(rest.body.segments);
  });

  it('two API replicas serve the same stream', async () => {
    const { meetingId, sessionId } = await bots.startMeeting(user, 'two-repl-ica');
    await bots.event(meetingId, sessionId, 'active');
    const clients = await Promise.all(
      [api, replica].map((instance) =>
        openSse(`${instance.baseUrl}/transcripts/google_meet/two-repl-ica/stream`, { 'X-API-Key': user.key }),
      ),
    );
    await bots.segment(meetingId, sessionId, { id: 'x', start: 1, text: 'heard by both' });
    await Promise.all(
      clients.map((client) => client.waitFor((events) => texts(events).includes('heard by both'))),
    );
    const stop = await api.request('DELETE', '/bots/google_meet/two-repl-ica', { key: user.key });
    expect(stop.status).toBe(202);
    await Promise.all(clients.map((client) => client.ended));
    for (const client of clients) {
      expect(
        client.events.find((e) => e.event === 'status' && e.data.status === 'completed')?.data,
      ).toMatchObject({
        source: 'api',
        reason: 'stopped',
      });
    }
  });
});
