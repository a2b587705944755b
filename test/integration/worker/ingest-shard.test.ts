import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser } from '../../../shared/accounts/users-store.js';
import { registerBotSession } from '../../../shared/bots/session-registry.js';
import { streamFields } from '../../../shared/contract/stream-codec.js';
import { botSegmentsStream, botSessionStream } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import { insertMeeting } from '../../../shared/meetings/store.js';
import { IngestShard, ingestMembersKey } from '../../../worker/ingest/ingest-shard.js';
import { Ingester } from '../../../worker/ingest/ingester.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { tempRecordingStorage } from '../../support/recording-storage.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('ingest-shard-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let database: TestDatabase;
let redis: Redis;
const connections: Redis[] = [];
const prefixes: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  redis = createTestRedis();
});

afterAll(async () => {
  for (const prefix of prefixes) await deleteKeys(redis, prefix);
  await Promise.all([redis, ...connections].map((connection) => connection.quit()));
  await database.drop();
});

function newPrefix(): string {
  const prefix = uniquePrefix('shard');
  prefixes.push(prefix);
  return prefix;
}

async function registerSessions(prefix: string, count: number): Promise<string[]> {
  const sessions = Array.from({ length: count }, () => randomUUID());
  for (const [index, sessionId] of sessions.entries()) {
    await registerBotSession(redis, prefix, sessionId, {
      meetingId: index + 1,
      workerId: 'worker-a',
      launchedAt: Date.now(),
    });
  }
  return sessions;
}

/** The sessions whose own segment streams a shard reads now. */
async function sessionsRead(shard: IngestShard, prefix: string): Promise<string[]> {
  const streams = await shard.streamsOf('segments', botSegmentsStream(prefix))(true);
  return streams.flatMap(({ binding }) => (binding ? [binding.sessionId] : []));
}

describe('the ingest shard', () => {
  it('gives each registered bot to one live worker: two workers read disjoint halves that cover every bot', async () => {
    const prefix = newPrefix();
    const sessions = await registerSessions(prefix, 60);
    const a = new IngestShard({ redis, prefix, member: 'worker-a' });
    const b = new IngestShard({ redis, prefix, member: 'worker-b' });
    await sessionsRead(a, prefix); // both are members before either counts its share
    const [readByB, readByA] = [await sessionsRead(b, prefix), await sessionsRead(a, prefix)];
    expect(readByA.length).toBeGreaterThan(10);
    expect(readByB.length).toBeGreaterThan(10);
    expect(readByA.filter((session) => readByB.includes(session))).toEqual([]);
    expect([...readByA, ...readByB].sort()).toEqual([...sessions].sort());
    // Every worker still reads the legacy shared stream.
    const streams = await a.streamsOf('segments', botSegmentsStream(prefix))();
    expect(streams[0]).toEqual({ stream: botSegmentsStream(prefix), binding: null });
    expect(streams[1]?.stream).toBe(botSessionStream(prefix, readByA[0]!, 'segments'));
  });

  it('hands a leaving worker’s bots to the others at once', async () => {
    const prefix = newPrefix();
    const sessions = await registerSessions(prefix, 30);
    const a = new IngestShard({ redis, prefix, member: 'worker-a' });
    const b = new IngestShard({ redis, prefix, member: 'worker-b' });
    await sessionsRead(a, prefix);
    await sessionsRead(b, prefix);
    expect((await sessionsRead(a, prefix)).length).toBeLessThan(30);
    await b.leave();
    expect(await redis.zrange(ingestMembersKey(prefix), 0, -1)).toEqual(['worker-a']);
    expect((await sessionsRead(a, prefix)).sort()).toEqual([...sessions].sort());
  });

  it('hands a dead worker’s bots to the others once it has been silent longer than the TTL', async () => {
    const prefix = newPrefix();
    const sessions = await registerSessions(prefix, 30);
    const a = new IngestShard({ redis, prefix, member: 'worker-a', memberTtlMs: 600 });
    const dead = new IngestShard({ redis, prefix, member: 'worker-dead', memberTtlMs: 600 });
    await sessionsRead(dead, prefix);
    expect((await sessionsRead(a, prefix)).length).toBeLessThan(30);
    // worker-dead never refreshes again.
    await expect
      .poll(async () => (await sessionsRead(a, prefix)).length, { timeout: 10_000, interval: 100 })
      .toBe(sessions.length);
    expect(await redis.zrange(ingestMembersKey(prefix), 0, -1)).toEqual(['worker-a']);
  });

  it('answers from its last refresh between refreshes, and asks again when told to', async () => {
    const prefix = newPrefix();
    await registerSessions(prefix, 3);
    const shard = new IngestShard({ redis, prefix, member: 'worker-a', refreshMs: 60_000 });
    const read = shard.streamsOf('events', botSegmentsStream(prefix));
    expect(await read()).toHaveLength(4);
    await registerSessions(prefix, 2);
    expect(await read()).toHaveLength(4);
    expect(await read(true)).toHaveLength(6);
  });
});

describe('two workers’ ingesters', () => {
  it('each apply their share of the bots’ segments, and together all of them', async () => {
    const prefix = newPrefix();
    const user = await insertUser(database.db, {
      email: `shard-${prefix}@example.com`,
      maxConcurrentBots: 100,
    });
    const launched: Array<{ meetingId: number; sessionId: string }> = [];
    for (let index = 0; index < 12; index++) {
      const nativeId = `abc-defg-${String(index).padStart(3, '0')}`;
      const meeting = await insertMeeting(database.db, {
        userId: user.id,
        platform: 'google_meet',
        nativeMeetingId: nativeId,
        meetingUrl: `https://meet.google.com/${nativeId}`,
        passcode: null,
        botName: 'Bot',
        language: null,
        task: 'transcribe',
      });
      // Fixed names: the split between the two workers is the same on every run.
      const sessionId = `shard-session-${index}`;
      await claimLaunch(database.db, meeting.id, { sessionId, workerId: 'worker-a' });
      await registerBotSession(redis, prefix, sessionId, {
        meetingId: meeting.id,
        workerId: 'worker-a',
        launchedAt: Date.now(),
      });
      await redis.xadd(
        botSessionStream(prefix, sessionId, 'segments'),
        '*',
        ...streamFields({
          meetingId: meeting.id,
          sessionId,
          segmentId: 's1',
          start: 1,
          end: 2,
          text: `meeting ${index}`,
          speaker: 'Ann',
          language: 'en',
          absoluteStartTime: '2026-12-07T10:00:01.000Z',
          absoluteEndTime: '2026-12-07T10:00:02.000Z',
          final: true,
        }),
      );
      launched.push({ meetingId: meeting.id, sessionId });
    }
    const ingester = (consumerName: string) => {
      const [eventsRedis, segmentsRedis] = [createTestRedis(), createTestRedis()];
      connections.push(eventsRedis, segmentsRedis);
      return new Ingester({
        db: database.db,
        eventsRedis,
        segmentsRedis,
        publisher: redis,
        prefix,
        consumerName,
        log,
        recordingStorage: tempRecordingStorage(),
      });
    };
    const [a, b] = [ingester('worker-a'), ingester('worker-b')];
    // Both are members before either reads.
    await a.segments.refresh(true);
    await b.segments.refresh(true);
    const appliedByA = await a.segments.drain();
    const appliedByB = await b.segments.drain();
    expect(appliedByA).toBeGreaterThan(0);
    expect(appliedByB).toBeGreaterThan(0);
    expect(appliedByA + appliedByB).toBe(launched.length);
    const rows = await database.db('transcript_segments').whereIn(
      'meeting_id',
      launched.map(({ meetingId }) => meetingId),
    );
    expect(rows).toHaveLength(launched.length);
    await Promise.all([a.stop(), b.stop()]);
    expect(await redis.zrange(ingestMembersKey(prefix), 0, -1)).toEqual([]);
  });
});
