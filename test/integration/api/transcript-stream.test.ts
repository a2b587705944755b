import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_FIELD, botEventsStream, botSegmentsStream } from '../../../shared/contract/streams.js';
import { claimLaunch } from '../../../shared/db/meetings.js';
import { createLogger } from '../../../shared/logger.js';
import { Ingester } from '../../../worker/ingest/ingester.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { createTestRedis } from '../../support/redis.js';
import { openSse, type SseEvent } from '../../support/sse.js';

let api: TestApi;
let replica: TestApi;
let user: TestUser;
let redis: Redis;
let ingester: Ingester;
const connections: Redis[] = [];

beforeAll(async () => {
  api = await startTestApi();
  replica = await startTestApi({ replicaOf: api });
  user = await api.createUser();
  redis = createTestRedis();
  const [eventsRedis, segmentsRedis] = [createTestRedis(), createTestRedis()];
  connections.push(redis, eventsRedis, segmentsRedis);
  // The real ingester, as a worker runs it: it commits, then announces the change.
  ingester = new Ingester({
    db: api.database.db,
    eventsRedis,
    segmentsRedis,
    publisher: redis,
    prefix: api.prefix,
    consumerName: 'stream-test',
    log: createLogger('stream-test', 'silent'),
  });
  ingester.start();
});
afterAll(async () => {
  await ingester.stop();
  for (const connection of connections) connection.disconnect();
  await replica.close();
  await api.close();
});

async function startMeeting(nativeId: string): Promise<{ meetingId: number; sessionId: string }> {
  const created = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(nativeId) });
  const sessionId = `session-${nativeId}`;
  await claimLaunch(api.database.db, created.body.id, { sessionId, workerId: 'stream-test' });
  return { meetingId: created.body.id, sessionId };
}

let seq = 0;
async function botEvent(
  meetingId: number,
  sessionId: string,
  status: string,
  extra: Record<string, unknown> = {},
) {
  seq += 1;
  await redis.xadd(
    botEventsStream(api.prefix),
    '*',
    STREAM_FIELD,
    JSON.stringify({ meetingId, sessionId, status, at: new Date().toISOString(), seq, ...extra }),
  );
}

async function botSegment(
  meetingId: number,
  sessionId: string,
  segmentId: string,
  start: number,
  text: string,
  final = true,
) {
  const base = Date.UTC(2026, 10, 22, 9);
  await redis.xadd(
    botSegmentsStream(api.prefix),
    '*',
    STREAM_FIELD,
    JSON.stringify({
      meetingId,
      sessionId,
      segmentId,
      start,
      end: start + 1,
      text,
      speaker: 'Ann',
      language: 'en',
      absoluteStartTime: new Date(base + start * 1000).toISOString(),
      absoluteEndTime: new Date(base + (start + 1) * 1000).toISOString(),
      final,
    }),
  );
}

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
    const { meetingId, sessionId } = await startMeeting('str-eame-ndd');
    await botEvent(meetingId, sessionId, 'active');
    await botSegment(meetingId, sessionId, 's1', 1, 'already said');
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

    await botSegment(meetingId, sessionId, 's2', 3, 'said while watching', false);
    await client.waitFor((events) => texts(events).includes('said while watching'));
    await botSegment(meetingId, sessionId, 's2', 3, 'said while watching, then corrected');
    await client.waitFor((events) => texts(events).includes('said while watching, then corrected'));

    await botEvent(meetingId, sessionId, 'completed', { reason: 'meeting_ended' });
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
    const { meetingId, sessionId } = await startMeeting('res-umes-trm');
    await botEvent(meetingId, sessionId, 'active');
    const first = await openSse(`${api.baseUrl}/transcripts/google_meet/res-umes-trm/stream`, {
      'X-API-Key': user.key,
    });
    await botSegment(meetingId, sessionId, 'a', 1, 'first words');
    await first.waitFor((events) => texts(events).includes('first words'));
    const lastId = first.events.at(-1)?.id;
    expect(lastId).toMatch(/^\d+-\d+$/);
    first.close();

    // While nobody listens: more words and a correction of the first ones.
    await botSegment(meetingId, sessionId, 'b', 2, 'said while disconnected');
    await botSegment(meetingId, sessionId, 'a', 1, 'first words, corrected');
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

    // Live updates reach this replica too (announced through Redis, not process memory).
    await botSegment(meetingId, sessionId, 'c', 4, 'live on the replica');
    await resumed.waitFor((events) => texts(events).includes('live on the replica'));

    await botEvent(meetingId, sessionId, 'completed', { reason: 'stopped' });
    await resumed.ended;
    const rest = await api.request('GET', '/transcripts/google_meet/res-umes-trm', { key: user.key });
    expect(transcriptFrom([...first.events, ...resumed.events])).toEqual(rest.body.segments);
  });

  it('two API replicas serve the same stream', async () => {
    const { meetingId, sessionId } = await startMeeting('two-repl-ica');
    await botEvent(meetingId, sessionId, 'active');
    const clients = await Promise.all(
      [api, replica].map((instance) =>
        openSse(`${instance.baseUrl}/transcripts/google_meet/two-repl-ica/stream`, { 'X-API-Key': user.key }),
      ),
    );
    await botSegment(meetingId, sessionId, 'x', 1, 'heard by both');
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
