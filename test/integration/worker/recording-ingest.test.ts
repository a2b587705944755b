import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CaptureTimeline } from '../../../bot/audio/capture-timeline.js';
import { Outbox } from '../../../bot/outbox.js';
import { MeetingRecorder } from '../../../bot/recording/meeting-recorder.js';
import { insertUser } from '../../../shared/accounts/users-store.js';
import { registerBotSession } from '../../../shared/bots/session-registry.js';
import { streamFields } from '../../../shared/contract/stream-codec.js';
import { botSessionStream } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { meetingChangesChannel } from '../../../shared/meetings/changes.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import { insertMeeting } from '../../../shared/meetings/store.js';
import { LocalRecordingStorage } from '../../../shared/recordings/local-storage.js';
import {
  findOrCreateRecording,
  findRecording,
  markRecordingsDeleting,
  type RecordingRecord,
} from '../../../shared/recordings/store.js';
import { Ingester } from '../../../worker/ingest/ingester.js';
import { RecordingSweeper } from '../../../worker/sweeps/recording-sweeper.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const log = createLogger('recording-ingest-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const RATE = 16_000;
let database: TestDatabase;
let redis: Redis;
let prefix: string;
let userId: number;
let dir: string;
let storage: LocalRecordingStorage;
const connections: Redis[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  redis = createTestRedis();
  userId = (await insertUser(database.db, { email: 'recordings@example.com', maxConcurrentBots: 1000 })).id;
});

beforeEach(async () => {
  if (prefix) await deleteKeys(redis, prefix);
  prefix = uniquePrefix('recording-ingest');
  dir = mkdtempSync(join(tmpdir(), 'recording-ingest-'));
  storage = new LocalRecordingStorage(dir);
  await database.db('meetings').update({ status: 'failed' }).whereNotIn('status', ['completed', 'failed']);
});

afterAll(async () => {
  for (const connection of connections) connection.disconnect();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await database.drop();
});

function newIngester(recordingStorage = storage): Ingester {
  const [eventsRedis, segmentsRedis, recordingRedis] = [
    createTestRedis(),
    createTestRedis(),
    createTestRedis(),
  ];
  connections.push(eventsRedis, segmentsRedis, recordingRedis);
  return new Ingester({
    db: database.db,
    eventsRedis,
    segmentsRedis,
    recordingRedis,
    recordingStorage,
    publisher: redis,
    prefix,
    consumerName: 'worker-a',
    log,
  });
}

let meetings = 0;
async function newMeeting(): Promise<{ meetingId: number; sessionId: string }> {
  meetings += 1;
  const nativeMeetingId = `abc-defg-${String.fromCharCode(97 + (meetings % 26)).repeat(3)}`;
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
  const sessionId = randomUUID();
  await claimLaunch(database.db, meeting.id, { sessionId, workerId: 'worker-a' });
  // As the launching worker does: the ingesters read this bot's own streams, bound to its meeting.
  await registerBotSession(redis, prefix, sessionId, {
    meetingId: meeting.id,
    workerId: 'worker-a',
    launchedAt: Date.now(),
  });
  await database.db('meetings').where({ id: meeting.id }).update({
    webhook_url: 'http://127.0.0.1:9/hooks',
    webhook_secret: 'secret',
  });
  return { meetingId: meeting.id, sessionId };
}

/** Records `seconds` of a tone through the bot's own recorder and outbox, chunk by chunk. */
async function recordThroughBot(
  meetingId: number,
  sessionId: string,
  seconds: number,
  options: { final?: boolean; startSeconds?: number } = {},
): Promise<Buffer[]> {
  const outbox = new Outbox(redis, { meetingId, sessionId, streamPrefix: prefix }, log);
  const timeline = new CaptureTimeline(RATE);
  const sent: Buffer[] = [];
  const recorder = new MeetingRecorder({
    sampleRate: RATE,
    timeline,
    log,
    chunkSeconds: 0,
    onChunk: (chunk) => {
      if (chunk.final && options.final === false) return;
      sent.push(chunk.bytes);
      void outbox.recordingChunk({
        seq: chunk.seq,
        data: chunk.bytes.toString('base64'),
        endSeconds: chunk.endSeconds,
        startSeconds: options.startSeconds ?? 0,
        final: chunk.final,
      });
    },
  });
  const start = Date.now();
  for (let t = 0; t < seconds; t += 0.2) {
    const samples = new Int16Array(RATE / 5).map((_, i) =>
      Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / RATE)),
    );
    timeline.append(samples.length, start + t * 1000);
    recorder.write(samples);
    // Let the encoder's pages come back between writes, as they do in a meeting (where writes come
    // every 200 ms). At half that, a busy machine still gets opusenc's 4 KB blocks (about one every
    // 1.4 s of audio) back between writes; at 15 ms, it once ran the whole loop before the first
    // block and every block came back as one chunk.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await recorder.stop();
  await outbox.drain();
  return sent;
}

async function recordingOf(meetingId: number): Promise<RecordingRecord> {
  const row = await database.db('recordings').where({ meeting_id: meetingId }).first();
  expect(row).toBeDefined();
  return (await findRecording(database.db, row.id))!;
}

describe('recording chunks', () => {
  it('are stored as they come; the final one assembles the file, marks it ready and writes recording.ready', async () => {
    const { meetingId, sessionId } = await newMeeting();
    const sent = await recordThroughBot(meetingId, sessionId, 8);
    // opusenc writes its stdout in 4 KB blocks: about one every 1.4 s of audio.
    expect(sent.length).toBeGreaterThan(3);

    const ingester = newIngester();
    // Announced once ready, so the webhook dispatcher delivers recording.ready at once.
    const listener = createTestRedis();
    connections.push(listener);
    const announced: number[][] = [];
    listener.on('message', (_channel: string, ids: string) => announced.push(JSON.parse(ids) as number[]));
    await listener.subscribe(meetingChangesChannel(prefix, 0));
    expect(await ingester.recordings.drain()).toBe(sent.length);
    await expect.poll(() => announced).toEqual([[meetingId]]);
    const recording = await recordingOf(meetingId);
    expect(recording).toMatchObject({
      state: 'ready',
      format: 'ogg_opus',
      startSeconds: 0,
      finalSeq: sent.length - 1,
    });
    expect(recording.durationSeconds).toBeCloseTo(8, 1);
    const file = await storage.read(recording.storageKey);
    const bytes = Buffer.concat(await file.toArray());
    expect(bytes.equals(Buffer.concat(sent))).toBe(true);
    expect(recording.sizeBytes).toBe(bytes.length);
    // Stored chunks leave the stream: audio is the bulk of what bots send.
    expect(await redis.xlen(botSessionStream(prefix, sessionId, 'recording'))).toBe(0);
    const deliveries = await database
      .db('webhook_deliveries')
      .where({ meeting_id: meetingId })
      .select('event_type', 'payload');
    expect(deliveries).toEqual([
      {
        event_type: 'recording.ready',
        payload: expect.objectContaining({
          recording: expect.objectContaining({
            id: recording.id,
            size: bytes.length,
            content_type: 'audio/ogg; codecs=opus',
          }),
        }),
      },
    ]);
  });

  it('out of order and repeated still make the same file, ready only once every chunk is there', async () => {
    const { meetingId, sessionId } = await newMeeting();
    const sent = await recordThroughBot(meetingId, sessionId, 6);
    const entries = await redis.xrange(botSessionStream(prefix, sessionId, 'recording'), '-', '+');
    await redis.del(botSessionStream(prefix, sessionId, 'recording'));
    // Final first, then all in reverse, then the first again; the second chunk held back.
    const held = entries[1]!;
    const reordered = [
      entries.at(-1)!,
      ...entries
        .slice(0, -1)
        .reverse()
        .filter((entry) => entry !== held),
      entries[0]!,
    ];
    for (const [, fields] of reordered)
      await redis.xadd(botSessionStream(prefix, sessionId, 'recording'), '*', ...fields);
    const ingester = newIngester();
    await ingester.recordings.drain();
    expect((await recordingOf(meetingId)).state).toBe('recording');
    await redis.xadd(botSessionStream(prefix, sessionId, 'recording'), '*', ...held[1]);
    await ingester.recordings.drain();
    const recording = await recordingOf(meetingId);
    expect(recording.state).toBe('ready');
    const bytes = Buffer.concat(await (await storage.read(recording.storageKey)).toArray());
    expect(bytes.equals(Buffer.concat(sent))).toBe(true);
    expect(
      await database.db('webhook_deliveries').where({ meeting_id: meetingId, event_type: 'recording.ready' }),
    ).toHaveLength(1);
  });

  it('of a relaunched bot make a second recording that starts where its transcript time says', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await recordThroughBot(meetingId, sessionId, 4);
    // The lost host's bot is replaced: a new launch session, carrying on the transcript at 73.2 s.
    const relaunch = randomUUID();
    await database.db('meetings').where({ id: meetingId }).update({ launch_session_id: relaunch });
    await registerBotSession(redis, prefix, relaunch, {
      meetingId,
      workerId: 'worker-b',
      launchedAt: Date.now(),
    });
    await recordThroughBot(meetingId, relaunch, 4, { startSeconds: 73.2 });
    await newIngester().recordings.drain();
    const rows = await database.db('recordings').where({ meeting_id: meetingId }).orderBy('id');
    expect(rows.map((row) => [row.session_id, row.state, row.start_seconds])).toEqual([
      [sessionId, 'ready', 0],
      [relaunch, 'ready', 73.2],
    ]);
    expect(rows[0].storage_key).not.toBe(rows[1].storage_key);
  });

  it("are looked up by meeting and session together: a session id never finds another meeting's recording", async () => {
    const first = await newMeeting();
    const second = await newMeeting();
    const input = { userId, sessionId: first.sessionId, startSeconds: 0 };
    const mine = await findOrCreateRecording(database.db, { ...input, meetingId: first.meetingId });
    const other = await findOrCreateRecording(database.db, { ...input, meetingId: second.meetingId });
    expect(other.id).not.toBe(mine.id);
    expect(other.meetingId).toBe(second.meetingId);
    expect((await findOrCreateRecording(database.db, { ...input, meetingId: first.meetingId })).id).toBe(
      mine.id,
    );
  });

  it('of a recording already deleted do not bring it back', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await recordThroughBot(meetingId, sessionId, 6, { final: false });
    const ingester = newIngester();
    await ingester.recordings.drain();
    const recording = await recordingOf(meetingId);
    await markRecordingsDeleting(database.db, { meetingIds: [meetingId] });
    await redis.xadd(
      botSessionStream(prefix, sessionId, 'recording'),
      '*',
      ...streamFields({
        meetingId,
        sessionId,
        seq: 40,
        data: 'AAAA',
        endSeconds: 9,
        startSeconds: 0,
        final: true,
      }),
    );
    await ingester.recordings.drain();
    const rows = await database.db('recordings').where({ session_id: sessionId });
    expect(rows.map((row) => [row.id, row.state])).toEqual([[recording.id, 'deleting']]);
  });

  it('wait out a storage outage without losing a chunk, while segments keep flowing', async () => {
    const { meetingId, sessionId } = await newMeeting();
    // A storage directory that can't be created (a file is in the way) until the file goes.
    const blocked = join(mkdtempSync(join(tmpdir(), 'recording-outage-')), 'store');
    writeFileSync(blocked, 'not a directory');
    const ingester = newIngester(new LocalRecordingStorage(blocked));
    ingester.start();
    try {
      const sent = await recordThroughBot(meetingId, sessionId, 2);
      await redis.xadd(
        botSessionStream(prefix, sessionId, 'segments'),
        '*',
        ...streamFields({
          meetingId,
          sessionId,
          segmentId: 's-1',
          start: 0,
          end: 1,
          text: 'still transcribing',
          speaker: 'Ann',
          language: 'en',
          absoluteStartTime: new Date().toISOString(),
          absoluteEndTime: new Date().toISOString(),
          final: true,
        }),
      );
      await expect
        .poll(
          () =>
            database
              .db('transcript_segments')
              .where({ meeting_id: meetingId })
              .count('* as n')
              .first()
              .then((row) => Number(row?.n)),
          { timeout: 10_000 },
        )
        .toBe(1);
      const pending = await redis.xlen(botSessionStream(prefix, sessionId, 'recording'));
      expect(pending).toBe(sent.length);
      rmSync(blocked);
      await expect
        .poll(async () => (await database.db('recordings').where({ meeting_id: meetingId }).first())?.state, {
          timeout: 20_000,
        })
        .toBe('ready');
      const recording = await recordingOf(meetingId);
      const bytes = readFileSync(join(blocked, `${recording.storageKey}.ogg`));
      expect(bytes.equals(Buffer.concat(sent))).toBe(true);
      expect(await redis.xlen(`${prefix}:bot-dead-letter`)).toBe(0);
    } finally {
      await ingester.stop();
    }
  });
});

describe('recording sweep', () => {
  const sweeper = () =>
    new RecordingSweeper(
      { db: database.db, storage, log },
      { staleSeconds: 0, retentionDays: 7, intervalMs: 60_000 },
    );

  it('finishes a recording whose bot died before its final chunk, once the meeting is over', async () => {
    const { meetingId, sessionId } = await newMeeting();
    const sent = await recordThroughBot(meetingId, sessionId, 6, { final: false });
    await newIngester().recordings.drain();
    expect((await recordingOf(meetingId)).state).toBe('recording');
    // The meeting is still live: nothing to finish yet.
    expect((await sweeper().sweep()).completed).toBe(0);
    await database.db('meetings').where({ id: meetingId }).update({ status: 'failed' });
    expect(await sweeper().sweep()).toMatchObject({ completed: 1 });
    const recording = await recordingOf(meetingId);
    expect(recording.state).toBe('ready');
    const bytes = Buffer.concat(await (await storage.read(recording.storageKey)).toArray());
    expect(bytes.equals(Buffer.concat(sent))).toBe(true);
  });

  it('removes the files of deleted recordings and of those past the retention, then their rows', async () => {
    const { meetingId, sessionId } = await newMeeting();
    await recordThroughBot(meetingId, sessionId, 1);
    const second = await newMeeting();
    await recordThroughBot(second.meetingId, second.sessionId, 1);
    await newIngester().recordings.drain();
    const deleted = await recordingOf(meetingId);
    const old = await recordingOf(second.meetingId);
    await markRecordingsDeleting(database.db, { ids: [deleted.id] });
    await database
      .db('recordings')
      .where({ id: old.id })
      .update({ completed_at: database.db.raw("now() - interval '8 days'") });

    expect(await sweeper().sweep()).toMatchObject({ removed: 2, expired: 1 });
    for (const recording of [deleted, old]) {
      expect(await storage.stat(recording.storageKey)).toBeNull();
      expect(await findRecording(database.db, recording.id)).toBeNull();
    }
  });
});
