/**
 * Ingest throughput: segments/s from the bots' Redis stream into Postgres through the real ingester
 * (consumer group, validation, batched upsert, ack after commit), next to a raw batched
 * INSERT … ON CONFLICT of the same rows on the same database.
 *   npx tsx bench/ingest-throughput.ts [--segments 20000]
 */

import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { insertUser } from '../shared/accounts/users-store.js';
import { streamFields } from '../shared/contract/stream-codec.js';
import { botSegmentsStream } from '../shared/contract/streams.js';
import { createLogger } from '../shared/infra/logger.js';
import { claimLaunch } from '../shared/meetings/launch-store.js';
import { insertMeeting } from '../shared/meetings/store.js';
import { createTestDatabase } from '../test/support/database.js';
import { tempRecordingStorage } from '../test/support/recording-storage.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../test/support/redis.js';
import { Ingester } from '../worker/ingest/ingester.js';

const { values } = parseArgs({ options: { segments: { type: 'string', default: '20000' } } });
const total = Number(values.segments);
const database = await createTestDatabase();
const redis = createTestRedis();
const prefix = uniquePrefix('bench');
const log = createLogger('bench', 'silent');

try {
  const user = await insertUser(database.db, { email: 'bench@example.com', maxConcurrentBots: 100 });
  const meetings: Array<{ id: number; sessionId: string }> = [];
  for (let index = 0; index < 10; index += 1) {
    const meeting = await insertMeeting(database.db, {
      userId: user.id,
      platform: 'teams',
      nativeMeetingId: String(1_000_000 + index),
      meetingUrl: `https://teams.microsoft.com/meet/${1_000_000 + index}?p=x`,
      passcode: 'x',
      botName: 'Bench',
      language: 'en',
      task: 'transcribe',
    });
    const sessionId = randomUUID();
    await claimLaunch(database.db, meeting.id, { sessionId, workerId: 'bench' });
    meetings.push({ id: meeting.id, sessionId });
  }
  const messages = Array.from({ length: total }, (_, index) => {
    const meeting = meetings[index % meetings.length]!;
    const start = Math.floor(index / meetings.length) * 2;
    return {
      meetingId: meeting.id,
      sessionId: meeting.sessionId,
      segmentId: `seg-${index}`,
      start,
      end: start + 1.8,
      text: 'we agreed to ship the release on friday after the last review of the open issues',
      speaker: `Speaker ${index % 4}`,
      language: 'en',
      absoluteStartTime: new Date(Date.UTC(2026, 10, 22, 10) + start * 1000).toISOString(),
      absoluteEndTime: new Date(Date.UTC(2026, 10, 22, 10) + (start + 1.8) * 1000).toISOString(),
      final: true,
    };
  });

  const stream = botSegmentsStream(prefix);
  for (let offset = 0; offset < messages.length; offset += 1000) {
    const pipeline = redis.pipeline();
    for (const message of messages.slice(offset, offset + 1000))
      pipeline.xadd(stream, '*', ...streamFields(message));
    await pipeline.exec();
  }

  const ingester = new Ingester({
    db: database.db,
    eventsRedis: createTestRedis(),
    segmentsRedis: createTestRedis(),
    publisher: redis,
    prefix,
    consumerName: 'bench',
    recordingStorage: tempRecordingStorage(),
    log,
  });
  let started = performance.now();
  const applied = await ingester.segments.drain();
  const ingestSeconds = (performance.now() - started) / 1000;
  const stored = Number((await database.db('transcript_segments').count({ n: '*' }))[0]?.n);

  await database.db('transcript_segments').delete();
  started = performance.now();
  for (let offset = 0; offset < messages.length; offset += 500) {
    const rows = messages.slice(offset, offset + 500).map((m) => ({
      meeting_id: m.meetingId,
      segment_id: m.segmentId,
      start_seconds: m.start,
      end_seconds: m.end,
      text: m.text,
      speaker: m.speaker,
      language: m.language,
      absolute_start_time: m.absoluteStartTime,
      absolute_end_time: m.absoluteEndTime,
      is_final: m.final,
    }));
    await database.db('transcript_segments').insert(rows).onConflict(['meeting_id', 'segment_id']).merge();
  }
  const rawSeconds = (performance.now() - started) / 1000;

  process.stdout.write(
    `segments: ${total} (stored by the ingester: ${stored}, messages applied: ${applied})\n` +
      `ingester (stream → validate → upsert → ack): ${(total / ingestSeconds).toFixed(0)} segments/s (${ingestSeconds.toFixed(2)} s)\n` +
      `raw batched INSERT … ON CONFLICT (500/batch): ${(total / rawSeconds).toFixed(0)} segments/s (${rawSeconds.toFixed(2)} s)\n` +
      `ingester / raw: ${((total / ingestSeconds / (total / rawSeconds)) * 100).toFixed(0)} %\n`,
  );
  await ingester.stop();
} finally {
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await database.drop();
}
process.exit(0);
