import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertUser } from '../../../shared/accounts/users-store.js';
import { streamFields } from '../../../shared/contract/stream-codec.js';
import { botDeadLetterStream, botSegmentsStream } from '../../../shared/contract/streams.js';
import { createKnex, type Knex } from '../../../shared/infra/knex.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import { insertMeeting } from '../../../shared/meetings/store.js';
import { INGEST_GROUP } from '../../../worker/ingest/ingester.js';
import { type BatchHandler, fixedStream, StreamConsumer } from '../../../worker/ingest/stream-consumer.js';
import { transcriptSegmentHandler } from '../../../worker/ingest/transcript-segments.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('ingest-outage-test', process.env.TEST_LOG_LEVEL ?? 'silent');
let database: TestDatabase;
let redis: Redis;
let unreachable: Knex;
const prefix = uniquePrefix('ingest-outage');

beforeAll(async () => {
  database = await createTestDatabase();
  redis = createTestRedis();
  // Nothing listens on port 9: every query fails the way a stopped Postgres makes it fail.
  unreachable = createKnex('postgres://postgres@127.0.0.1:9/none', 1);
});

afterAll(async () => {
  await unreachable.destroy();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await database.drop();
});

describe('segment ingest while Postgres goes away and comes back', () => {
  it('dead-letters nothing when the store returns in the middle of a failed batch; the batch is applied later', async () => {
    const user = await insertUser(database.db, { email: 'outage@example.com', maxConcurrentBots: 10 });
    const meeting = await insertMeeting(database.db, {
      userId: user.id,
      platform: 'google_meet',
      nativeMeetingId: 'abc-defg-hij',
      meetingUrl: 'https://meet.google.com/abc-defg-hij',
      passcode: null,
      botName: 'Bot',
      language: null,
      task: 'transcribe',
    });
    const sessionId = randomUUID();
    await claimLaunch(database.db, meeting.id, { sessionId, workerId: 'w' });
    const stream = botSegmentsStream(prefix);
    for (const [index, text] of ['one', 'two', 'three'].entries()) {
      await redis.xadd(
        stream,
        '*',
        ...streamFields({
          meetingId: meeting.id,
          sessionId,
          segmentId: `s${index}`,
          start: index,
          end: index + 0.5,
          text,
          speaker: 'Ann',
          language: 'en',
          absoluteStartTime: new Date(Date.UTC(2026, 10, 23, 10, 0, index)).toISOString(),
          absoluteEndTime: new Date(Date.UTC(2026, 10, 23, 10, 0, index, 500)).toISOString(),
          final: true,
        }),
      );
    }

    // The real handler, behind a store that is down for the batch and for the first message
    // retried alone, then back: what a Postgres restart does to a batch in flight.
    const real = transcriptSegmentHandler(database.db, log, async () => {});
    let calls = 0;
    const handler: BatchHandler = async (messages) => {
      calls += 1;
      if (calls <= 2) await unreachable.raw('SELECT 1');
      return real(messages);
    };
    const consumer = new StreamConsumer({
      redis,
      streams: fixedStream(stream),
      name: 'segments',
      group: INGEST_GROUP,
      consumer: 'worker-a',
      deadLetterStream: botDeadLetterStream(prefix),
      handler,
      log,
    });

    // Retried as the worker's loop does, until the store answers.
    const failures: string[] = [];
    for (let attempt = 0; attempt < 5; attempt += 1) {
      try {
        await consumer.drain();
        break;
      } catch (error) {
        failures.push((error as Error).message);
        expect(await redis.xlen(botDeadLetterStream(prefix))).toBe(0);
        expect(((await redis.xpending(stream, INGEST_GROUP)) as [number])[0]).toBe(3);
      }
    }
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.every((message) => message.includes('ECONNREFUSED'))).toBe(true);
    const rows = await database
      .db('transcript_segments')
      .where({ meeting_id: meeting.id })
      .orderBy('start_seconds');
    expect(rows.map((row) => row.text)).toEqual(['one', 'two', 'three']);
    expect(await redis.xlen(botDeadLetterStream(prefix))).toBe(0);
    expect(((await redis.xpending(stream, INGEST_GROUP)) as [number])[0]).toBe(0);
  });
});
