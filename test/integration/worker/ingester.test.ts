import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertUser } from '../../../shared/accounts/users-store.js';
import { STREAM_FIELD, streamFields } from '../../../shared/contract/stream-codec.js';
import { registerBotSession } from '../../../shared/bots/session-registry.js';
import {
  botDeadLetterStream,
  botEventsStream,
  botHealthStream,
  botSegmentsStream,
  botSessionStream,
} from '../../../shared/contract/streams.js';
import { createKnex } from '../../../shared/infra/knex.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import { findMeetingById, insertMeeting } from '../../../shared/meetings/store.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { INGEST_GROUP, Ingester } from '../../../worker/ingest/ingester.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { tempRecordingStorage } from '../../support/recording-storage.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('ingest-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let database: TestDatabase;
let redis: Redis;
let prefix: string;
let userId: number;
const connections: Redis[] = [];

function newIngester(db = database.db, consumerName = 'worker-a', claimIdleMs?: number): Ingester {
  const eventsRedis = createTestRedis();
  const segmentsRedis = createTestRedis();
  connections.push(eventsRedis, segmentsRedis);
  return new Ingester({
    db,
    eventsRedis,
    segmentsRedis,
    publisher: redis,
    prefix,
    consumerName,
    log,
    claimIdleMs,
    recordingStorage: tempRecordingStorage(),
  });
}

async function newMeeting(
  nativeMeetingId = 'abc-defg-hij',
): Promise<{ meetingId: number; sessionId: string }> {
  const meeting = await insertMeeting(database.db, {
    userId,
    platform: 'google_meet',
    nativeMeetingId,
    meetingUrl: `https://meet.google.com/${nativeMeetingId}`,
    passcode: null,
    botName: 'Bot',
    language: null,
    task: 'transcribe',
  });
  // One live bot per meeting id: end it right away for the next test unless it is used.
  const sessionId = randomUUID();
  await claimLaunch(database.db, meeting.id, { sessionId, workerId: 'worker-a' });
  return { meetingId: meeting.id, sessionId };
}

let seq = 0;
async function publishEvent(event: Record<string, unknown>): Promise<void> {
  seq += 1;
  await redis.xadd(
    botEventsStream(prefix),
    '*',
    ...streamFields({ at: new Date().toISOString(), seq, ...event }),
  );
}

async function publishRaw(stream: string, data: string): Promise<void> {
  await redis.xadd(stream, '*', STREAM_FIELD, data);
}

function segmentMessage(
  meetingId: number,
  sessionId: string,
  segmentId: string,
  text: string,
  extra: Record<string, unknown> = {},
) {
  return {
    meetingId,
    sessionId,
    segmentId,
    start: 1,
    end: 2,
    text,
    speaker: 'Ann',
    language: 'en',
    absoluteStartTime: '2026-11-22T10:00:01.000Z',
    absoluteEndTime: '2026-11-22T10:00:02.000Z',
    final: false,
    ...extra,
  };
}

async function publishSegment(message: Record<string, unknown>): Promise<void> {
  await publishRaw(botSegmentsStream(prefix), JSON.stringify(message));
}

async function pendingCount(stream: string): Promise<number> {
  const summary = (await redis.xpending(stream, INGEST_GROUP)) as [number, ...unknown[]];
  return summary[0];
}

async function deadLetters(): Promise<Array<Record<string, string>>> {
  const entries = await redis.xrange(botDeadLetterStream(prefix), '-', '+');
  return entries.map(([, fields]) => {
    const record: Record<string, string> = {};
    for (let index = 0; index < fields.length; index += 2) record[fields[index]!] = fields[index + 1]!;
    return record;
  });
}

beforeAll(async () => {
  database = await createTestDatabase();
  redis = createTestRedis();
  const user = await insertUser(database.db, { email: 'ingest@example.com', maxConcurrentBots: 1000 });
  userId = user.id;
});

beforeEach(async () => {
  if (prefix) await deleteKeys(redis, prefix);
  prefix = uniquePrefix('ingest');
  await database.db('meetings').update({ status: 'failed' }).whereNotIn('status', ['completed', 'failed']);
});

afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await database.drop();
});

describe('lifecycle events', () => {
  it('move the meeting forward, set start and end, and record every transition with source and reason', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await database.db('meetings').where({ id: meetingId }).update({ bot_container_id: 'c-1' });
    for (const status of ['joining', 'awaiting_admission', 'active'])
      await publishEvent({ meetingId, sessionId, status });
    const ingester = newIngester();
    await ingester.events.drain();
    const active = await findMeetingById(database.db, meetingId);
    expect(active).toMatchObject({ status: 'active', botContainerId: 'c-1', endTime: null });
    expect(active?.startTime).toBeInstanceOf(Date);

    await publishEvent({
      meetingId,
      sessionId,
      status: 'completed',
      reason: 'meeting_ended',
      detail: 'host ended it',
    });
    await ingester.events.drain();
    const ended = await findMeetingById(database.db, meetingId);
    expect(ended).toMatchObject({ status: 'completed', botContainerId: null });
    expect(ended?.endTime).toBeInstanceOf(Date);

    const transitions = await listTransitions(database.db, meetingId);
    expect(transitions.map((t) => [t.from, t.to, t.source, t.reason])).toEqual([
      ['requested', 'joining', 'bot', null],
      ['joining', 'awaiting_admission', 'bot', null],
      ['awaiting_admission', 'active', 'bot', null],
      ['active', 'completed', 'bot', 'meeting_ended'],
    ]);
    expect(transitions.at(-1)?.detail).toBe('host ended it');
    expect(await pendingCount(botEventsStream(prefix))).toBe(0);
  });

  it('never move a meeting back: late, repeated and post-terminal events change nothing', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await publishEvent({ meetingId, sessionId, status: 'active' });
    await publishEvent({ meetingId, sessionId, status: 'joining' });
    await publishEvent({ meetingId, sessionId, status: 'active' });
    await publishEvent({ meetingId, sessionId, status: 'failed', reason: 'crashed' });
    await publishEvent({ meetingId, sessionId, status: 'completed', reason: 'stopped' });
    await publishEvent({ meetingId, sessionId, status: 'active' });
    await newIngester().events.drain();
    expect((await findMeetingById(database.db, meetingId))?.status).toBe('failed');
    const transitions = await listTransitions(database.db, meetingId);
    expect(transitions.map((t) => t.to)).toEqual(['active', 'failed']);
    expect(await pendingCount(botEventsStream(prefix))).toBe(0);
  });

  it('from another launch session are ignored', async () => {
    const { meetingId } = await newMeeting();
    await publishEvent({ meetingId, sessionId: 'someone-else', status: 'active' });
    await newIngester().events.drain();
    expect((await findMeetingById(database.db, meetingId))?.status).toBe('requested');
  });

  it('that can never be applied go to the dead-letter stream with the reason and never block the rest', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await publishRaw(botEventsStream(prefix), '{not json');
    await publishEvent({ meetingId, sessionId, status: 'teleported' });
    await publishEvent({ meetingId: 987654, sessionId, status: 'joining' });
    await publishEvent({ meetingId, sessionId, status: 'joining' });
    await newIngester().events.drain();
    expect((await findMeetingById(database.db, meetingId))?.status).toBe('joining');
    const dead = await deadLetters();
    expect(dead.map((entry) => entry.reason)).toEqual([
      'data is not valid JSON',
      expect.stringMatching(/^invalid message: status/),
      'meeting 987654 not found',
    ]);
    expect(dead[0]).toMatchObject({ stream: botEventsStream(prefix), data: '{not json' });
    expect(await pendingCount(botEventsStream(prefix))).toBe(0);
  });
});

describe('transcript segments', () => {
  it('are upserted by segment id: a mutable segment is updated in place, a repeat writes nothing', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await publishSegment(segmentMessage(meetingId, sessionId, 'u1', 'hello'));
    await publishSegment(segmentMessage(meetingId, sessionId, 'u1', 'hello there', { end: 2.5 }));
    await publishSegment(
      segmentMessage(meetingId, sessionId, 'u2', 'second', { start: 3, end: 4, final: true }),
    );
    const ingester = newIngester();
    await ingester.segments.drain();
    let rows = await database
      .db('transcript_segments')
      .where({ meeting_id: meetingId })
      .orderBy('start_seconds');
    expect(rows.map((row) => [row.segment_id, row.text, row.is_final])).toEqual([
      ['u1', 'hello there', false],
      ['u2', 'second', true],
    ]);

    await publishSegment(
      segmentMessage(meetingId, sessionId, 'u1', 'hello there, friends', { end: 3, final: true }),
    );
    await ingester.segments.drain();
    const finalRow = await database
      .db('transcript_segments')
      .where({ meeting_id: meetingId, segment_id: 'u1' })
      .first();
    expect(finalRow).toMatchObject({ text: 'hello there, friends', is_final: true });

    // Redelivered copies: identical (no write at all) and an older non-final copy (never replaces the final).
    await publishSegment(
      segmentMessage(meetingId, sessionId, 'u1', 'hello there, friends', { end: 3, final: true }),
    );
    await publishSegment(segmentMessage(meetingId, sessionId, 'u1', 'hello', { final: false }));
    await ingester.segments.drain();
    rows = await database.db('transcript_segments').where({ meeting_id: meetingId }).orderBy('start_seconds');
    expect(rows).toHaveLength(2);
    const again = rows.find((row) => row.segment_id === 'u1');
    expect(again).toMatchObject({ text: 'hello there, friends', is_final: true });
    expect(again.updated_at).toEqual(finalRow.updated_at);
    expect(await pendingCount(botSegmentsStream(prefix))).toBe(0);
  });

  it('flushed after the meeting ended are kept', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await publishEvent({ meetingId, sessionId, status: 'active' });
    await publishEvent({ meetingId, sessionId, status: 'completed', reason: 'stopped' });
    const ingester = newIngester();
    await ingester.events.drain();
    await publishSegment(segmentMessage(meetingId, sessionId, 'last', 'last words', { final: true }));
    await ingester.segments.drain();
    expect(await database.db('transcript_segments').where({ meeting_id: meetingId })).toHaveLength(1);
  });

  it('stay pending while Postgres is unreachable, and are applied once it is back', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await publishSegment(segmentMessage(meetingId, sessionId, 'p1', 'waiting', { final: true }));
    const unreachable = createKnex('postgres://postgres@127.0.0.1:9/none', 1);
    await expect(newIngester(unreachable, 'worker-a').segments.drain()).rejects.toThrow();
    await unreachable.destroy();
    expect(await pendingCount(botSegmentsStream(prefix))).toBe(1);
    expect(await database.db('transcript_segments').where({ meeting_id: meetingId })).toHaveLength(0);

    await newIngester(database.db, 'worker-a').segments.drain();
    expect(await database.db('transcript_segments').where({ meeting_id: meetingId })).toHaveLength(1);
    expect(await pendingCount(botSegmentsStream(prefix))).toBe(0);
  });

  it('dead-letters a message Postgres rejects and applies the rest of its batch', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await publishSegment(segmentMessage(meetingId, sessionId, 'ok1', 'fine', { final: true }));
    await publishSegment(segmentMessage(meetingId, sessionId, 'bad', 'nul \u0000 byte', { final: true }));
    await publishSegment(
      segmentMessage(meetingId, sessionId, 'ok2', 'also fine', { start: 5, end: 6, final: true }),
    );
    await publishSegment({ meetingId, text: 'no ids' });
    await newIngester().segments.drain();
    const rows = await database
      .db('transcript_segments')
      .where({ meeting_id: meetingId })
      .orderBy('start_seconds');
    expect(rows.map((row) => row.segment_id)).toEqual(['ok1', 'ok2']);
    const reasons = (await deadLetters()).map((entry) => entry.reason);
    expect(reasons).toHaveLength(2);
    expect(reasons).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^invalid message/),
        expect.stringMatching(/^not applicable/),
      ]),
    );
    expect(await pendingCount(botSegmentsStream(prefix))).toBe(0);
  });

  it('with a time past seven days are refused: dead-lettered with the reason, never stored', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await publishSegment(
      segmentMessage(meetingId, sessionId, 'far', 'far future', { start: 1e300, end: 1e300 }),
    );
    await publishSegment(segmentMessage(meetingId, sessionId, 'late-end', 'ends late', { end: 604_800.5 }));
    await publishSegment(
      segmentMessage(meetingId, sessionId, 'edge', 'at the bound', { start: 604_799, end: 604_800 }),
    );
    await newIngester().segments.drain();
    const rows = await database.db('transcript_segments').where({ meeting_id: meetingId });
    expect(rows.map((row) => row.segment_id)).toEqual(['edge']);
    expect((await deadLetters()).map((entry) => entry.reason)).toEqual([
      'invalid message: start: must be at most 604800 seconds (7 days)',
      'invalid message: end: must be at most 604800 seconds (7 days)',
    ]);
    expect(await pendingCount(botSegmentsStream(prefix))).toBe(0);
  });

  it('left pending by a consumer that died are taken over by another', async () => {
    const { meetingId, sessionId } = await newMeeting();
    const stream = botSegmentsStream(prefix);
    await redis.xgroup('CREATE', stream, INGEST_GROUP, '0', 'MKSTREAM');
    await publishSegment(segmentMessage(meetingId, sessionId, 'orphan', 'picked up later', { final: true }));
    // A consumer reads the message and dies before acknowledging it.
    await redis.xreadgroup('GROUP', INGEST_GROUP, 'dead-worker', 'COUNT', 10, 'STREAMS', stream, '>');
    expect(await pendingCount(stream)).toBe(1);

    const survivor = newIngester(database.db, 'worker-b', 200);
    survivor.segments.start();
    try {
      await expect
        .poll(async () => database.db('transcript_segments').where({ meeting_id: meetingId }), {
          timeout: 15_000,
          interval: 200,
        })
        .toHaveLength(1);
      await expect.poll(() => pendingCount(stream), { timeout: 5000 }).toBe(0);
    } finally {
      await survivor.stop();
    }
  });
});

describe('transcription health reports', () => {
  it('become meeting.transcription_health webhook events; old sessions are ignored, bad ones dead-lettered', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await database.db('meetings').where({ id: meetingId }).update({
      webhook_url: 'http://127.0.0.1:9/hooks',
      webhook_secret: 'secret',
    });
    const report = (extra: Record<string, unknown>) =>
      publishRaw(
        botHealthStream(prefix),
        JSON.stringify({ meetingId, sessionId, at: '2026-11-23T10:00:05.000Z', lagSeconds: 12.5, ...extra }),
      );
    await report({ kind: 'lagging' });
    await report({
      kind: 'audio_dropped',
      lagSeconds: 31,
      droppedFrom: '2026-11-23T10:00:30.000Z',
      droppedTo: '2026-11-23T10:00:42.000Z',
    });
    await report({ kind: 'caught_up', lagSeconds: 2 });
    // The page's capture lost audio (its clock skipped it), the engine keeping up.
    await report({
      kind: 'audio_dropped',
      lagSeconds: 0.4,
      droppedFrom: '2026-11-23T10:01:00.000Z',
      droppedTo: '2026-11-23T10:01:40.000Z',
      droppedBy: 'capture',
      droppedSeconds: 18.5,
    });
    await report({ kind: 'lagging', sessionId: randomUUID() }); // an older launch of the meeting
    await report({ kind: 'asleep' });

    const ingester = newIngester();
    expect(await ingester.health.drain()).toBeGreaterThan(0);
    const deliveries = await database
      .db('webhook_deliveries')
      .where({ meeting_id: meetingId })
      .orderBy('seq')
      .select('event_type', 'payload');
    expect(deliveries.map((row) => row.event_type)).toEqual(Array(4).fill('meeting.transcription_health'));
    expect(deliveries.map((row) => row.payload)).toEqual([
      expect.objectContaining({ kind: 'lagging', lag_seconds: 12.5, dropped_from: null, dropped_by: null }),
      expect.objectContaining({
        kind: 'audio_dropped',
        lag_seconds: 31,
        dropped_from: '2026-11-23T10:00:30.000Z',
        dropped_to: '2026-11-23T10:00:42.000Z',
        // A bot that does not say what dropped it: the engine, as before the field.
        dropped_by: 'engine',
        dropped_seconds: null,
      }),
      expect.objectContaining({ kind: 'caught_up', lag_seconds: 2, dropped_by: null }),
      expect.objectContaining({
        kind: 'audio_dropped',
        dropped_from: '2026-11-23T10:01:00.000Z',
        dropped_to: '2026-11-23T10:01:40.000Z',
        dropped_by: 'capture',
        dropped_seconds: 18.5,
      }),
    ]);
    expect(deliveries[0]!.payload.meeting).toMatchObject({ id: meetingId, platform: 'google_meet' });
    // The meeting's history says the same, keeping its status.
    const history = (await listTransitions(database.db, meetingId)).filter((t) => t.source === 'bot');
    expect(history.map((t) => [t.from, t.to, t.reason])).toEqual([
      ['requested', 'requested', 'transcription_lagging'],
      ['requested', 'requested', 'audio_dropped'],
      ['requested', 'requested', 'transcription_caught_up'],
      ['requested', 'requested', 'audio_dropped'],
    ]);
    expect(history[1]!.detail).toContain('from 2026-11-23T10:00:30.000Z to 2026-11-23T10:00:42.000Z');
    expect(history[3]!.detail).toBe(
      "the bot's audio capture lost 18.5 s of the meeting's audio from 2026-11-23T10:01:00.000Z to 2026-11-23T10:01:40.000Z (its browser was short of CPU)",
    );
    expect(await deadLetters()).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('kind') }),
    ]);
    await ingester.stop();
  });
});

describe("a bot's own streams", () => {
  /** A meeting whose bot was launched as a worker launches it: its session registered, bound to it. */
  async function launchedMeeting(
    nativeMeetingId?: string,
  ): Promise<{ meetingId: number; sessionId: string }> {
    const launched = await newMeeting(nativeMeetingId);
    await registerBotSession(redis, prefix, launched.sessionId, {
      meetingId: launched.meetingId,
      workerId: 'worker-a',
      launchedAt: Date.now(),
    });
    return launched;
  }

  async function appendOwn(
    sessionId: string,
    kind: 'events' | 'segments' | 'health' | 'recording',
    message: Record<string, unknown>,
  ): Promise<void> {
    await redis.xadd(botSessionStream(prefix, sessionId, kind), '*', ...streamFields(message));
  }

  it('are read and applied to the meeting the worker launched the bot for', async () => {
    const { meetingId, sessionId } = await launchedMeeting();
    await appendOwn(sessionId, 'events', {
      meetingId,
      sessionId,
      status: 'joining',
      at: new Date().toISOString(),
      seq: 0,
    });
    await appendOwn(sessionId, 'segments', segmentMessage(meetingId, sessionId, 'own-1', 'my own words'));
    const ingester = newIngester();
    await ingester.events.drain();
    await ingester.segments.drain();
    expect((await findMeetingById(database.db, meetingId))?.status).toBe('joining');
    const rows = await database.db('transcript_segments').where({ meeting_id: meetingId });
    expect(rows.map((row) => row.text)).toEqual(['my own words']);
    expect(await pendingCount(botSessionStream(prefix, sessionId, 'segments'))).toBe(0);
    expect(await deadLetters()).toEqual([]);
  });

  it('that name another meeting or session go to the dead letters; nothing lands in the other meeting', async () => {
    const attacker = await launchedMeeting();
    const victim = await launchedMeeting('vic-timm-eet');
    const at = new Date().toISOString();
    // Every kind of message, naming the victim's meeting (and session), sent through the attacker's streams.
    await appendOwn(attacker.sessionId, 'events', {
      ...victim,
      status: 'failed',
      reason: 'crashed',
      at,
      seq: 0,
    });
    await appendOwn(attacker.sessionId, 'events', {
      meetingId: attacker.meetingId,
      sessionId: victim.sessionId,
      status: 'active',
      at,
      seq: 1,
    });
    await appendOwn(
      attacker.sessionId,
      'segments',
      segmentMessage(victim.meetingId, victim.sessionId, 'x', 'forged'),
    );
    await appendOwn(
      attacker.sessionId,
      'segments',
      segmentMessage(victim.meetingId, attacker.sessionId, 'y', 'forged too'),
    );
    await appendOwn(attacker.sessionId, 'health', { ...victim, at, kind: 'lagging', lagSeconds: 99 });
    await appendOwn(attacker.sessionId, 'recording', {
      ...victim,
      seq: 0,
      data: 'AAAA',
      endSeconds: 1,
      startSeconds: 0,
      final: true,
    });
    const ingester = newIngester();
    await ingester.events.drain();
    await ingester.segments.drain();
    await ingester.health.drain();
    await ingester.recordings.drain();

    expect((await findMeetingById(database.db, victim.meetingId))?.status).toBe('requested');
    expect((await findMeetingById(database.db, attacker.meetingId))?.status).toBe('requested');
    expect(await listTransitions(database.db, victim.meetingId)).toEqual([]);
    expect(
      await database.db('transcript_segments').whereIn('meeting_id', [victim.meetingId, attacker.meetingId]),
    ).toEqual([]);
    expect(
      await database.db('recordings').whereIn('meeting_id', [victim.meetingId, attacker.meetingId]),
    ).toEqual([]);
    const dead = await deadLetters();
    expect(dead).toHaveLength(6);
    for (const entry of dead) {
      expect(entry.reason).toContain(
        `came through the stream of meeting ${attacker.meetingId} session ${attacker.sessionId}`,
      );
      expect(entry.stream).toMatch(new RegExp(`^${prefix}:bot:${attacker.sessionId}:`));
    }
    expect(dead[0]!.reason).toContain(`names meeting ${victim.meetingId} session ${victim.sessionId}`);
    for (const kind of ['events', 'segments', 'health', 'recording'] as const) {
      expect(await pendingCount(botSessionStream(prefix, attacker.sessionId, kind))).toBe(0);
    }
  });

  it('of several bots are applied in one batch; a message sharing its id with another bot’s is dead-lettered alone, named by its own stream', async () => {
    const first = await launchedMeeting('fir-stmm-eet');
    const second = await launchedMeeting('sec-ondm-eet');
    // The same entry id in both streams (ids are per stream): the first bot's is good, the second's forged.
    await redis.xadd(
      botSessionStream(prefix, first.sessionId, 'segments'),
      '5-1',
      ...streamFields(segmentMessage(first.meetingId, first.sessionId, 'f1', 'first bot', { final: true })),
    );
    await redis.xadd(
      botSessionStream(prefix, second.sessionId, 'segments'),
      '5-1',
      ...streamFields(segmentMessage(first.meetingId, first.sessionId, 'f2', 'forged', { final: true })),
    );
    await redis.xadd(
      botSessionStream(prefix, second.sessionId, 'segments'),
      '6-1',
      ...streamFields(
        segmentMessage(second.meetingId, second.sessionId, 's1', 'second bot', { final: true }),
      ),
    );
    expect(await newIngester().segments.drain()).toBe(3);
    const rows = await database
      .db('transcript_segments')
      .whereIn('meeting_id', [first.meetingId, second.meetingId])
      .orderBy('meeting_id');
    expect(rows.map((row) => [row.meeting_id, row.text])).toEqual([
      [first.meetingId, 'first bot'],
      [second.meetingId, 'second bot'],
    ]);
    const dead = await deadLetters();
    expect(dead).toEqual([
      expect.objectContaining({ stream: botSessionStream(prefix, second.sessionId, 'segments'), id: '5-1' }),
    ]);
    expect(await pendingCount(botSessionStream(prefix, first.sessionId, 'segments'))).toBe(0);
    expect(await pendingCount(botSessionStream(prefix, second.sessionId, 'segments'))).toBe(0);
  });

  it('of a session no worker launched are never read', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await appendOwn(sessionId, 'segments', segmentMessage(meetingId, sessionId, 'ghost', 'unregistered'));
    await newIngester().segments.drain();
    expect(await database.db('transcript_segments').where({ meeting_id: meetingId })).toEqual([]);
    expect(await redis.xlen(botSessionStream(prefix, sessionId, 'segments'))).toBe(1);
  });

  it('are read by a running ingester as soon as a new bot is registered', async () => {
    const ingester = newIngester();
    ingester.segments.start();
    try {
      const { meetingId, sessionId } = await launchedMeeting();
      await appendOwn(
        sessionId,
        'segments',
        segmentMessage(meetingId, sessionId, 'late', 'a new bot', { final: true }),
      );
      await expect
        .poll(() => database.db('transcript_segments').where({ meeting_id: meetingId }), { timeout: 10_000 })
        .toHaveLength(1);
    } finally {
      await ingester.stop();
    }
  });
});
