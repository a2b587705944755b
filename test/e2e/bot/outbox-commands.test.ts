import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { CommandReader } from '../../../bot/commands.js';
import { Outbox } from '../../../bot/outbox.js';
import type { BotCommand } from '../../../shared/contract/commands.js';
import { lifecycleEvent, transcriptSegmentMessage } from '../../../shared/contract/events.js';
import { STREAM_FIELD, streamData } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream, botSessionStream } from '../../../shared/contract/streams.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { TEST_REDIS_URL } from '../../support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';

const prefix = uniquePrefix('bot-outbox');
const redis = createTestRedis();
const log = createLogger('bot-outbox-test', 'silent');

async function readStream(key: string): Promise<unknown[]> {
  const entries = await redis.xrange(key, '-', '+');
  return entries.map(([, fields]) => JSON.parse(streamData(fields)!));
}

afterAll(async () => {
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

describe('Outbox', () => {
  it('appends numbered lifecycle events and segments in order, valid against the contract', async () => {
    const outbox = new Outbox(redis, { meetingId: 7, sessionId: 's-1', streamPrefix: prefix }, log);
    void outbox.event({ status: 'joining' });
    void outbox.event({ status: 'awaiting_admission' });
    void outbox.segment({
      segmentId: 's-1:0',
      start: 1.5,
      end: 2.25,
      text: 'hello there',
      speaker: 'Alice',
      language: 'en',
      absoluteStartTime: '2026-01-01T00:00:01.500Z',
      absoluteEndTime: '2026-01-01T00:00:02.250Z',
      final: true,
    });
    void outbox.event({ status: 'active' });
    await outbox.event({ status: 'completed', reason: 'stopped' });
    await outbox.drain();

    const events = (await readStream(botSessionStream(prefix, 's-1', 'events'))).map((raw) =>
      lifecycleEvent.parse(raw),
    );
    expect(events.map((event) => [event.status, event.seq])).toEqual([
      ['joining', 0],
      ['awaiting_admission', 1],
      ['active', 2],
      ['completed', 3],
    ]);
    expect(events[3]).toMatchObject({ meetingId: 7, sessionId: 's-1', reason: 'stopped' });
    const segments = (await readStream(botSessionStream(prefix, 's-1', 'segments'))).map((raw) =>
      transcriptSegmentMessage.parse(raw),
    );
    expect(segments).toEqual([
      expect.objectContaining({ segmentId: 's-1:0', speaker: 'Alice', meetingId: 7 }),
    ]);
    expect(outbox.failedAppends()).toBe(0);
  });

  it('refuses an event the contract does not allow', () => {
    const outbox = new Outbox(redis, { meetingId: 7, sessionId: 's-2', streamPrefix: prefix }, log);
    // @ts-expect-error: 'left_alone' is a completed reason, not a failed one.
    expect(() => outbox.event({ status: 'failed', reason: 'left_alone' })).toThrow();
  });
});

describe('CommandReader', () => {
  it('reads commands sent before and after it started, from its own connection, skipping bad ones', async () => {
    const stream = botCommandsStream(prefix, 42);
    const issuedAt = new Date().toISOString();
    await redis.xadd(
      stream,
      '*',
      STREAM_FIELD,
      JSON.stringify({ type: 'reconfigure', language: 'fr', issuedAt }),
    );
    await redis.xadd(stream, '*', STREAM_FIELD, 'not json');
    await redis.xadd(stream, '*', STREAM_FIELD, JSON.stringify({ type: 'explode', issuedAt }));

    const received: BotCommand[] = [];
    const reader = new CommandReader(
      new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null }),
      stream,
      (command) => received.push(command),
      log,
    );
    reader.start();
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(1);
    await redis.xadd(stream, '*', STREAM_FIELD, JSON.stringify({ type: 'leave', issuedAt }));
    await expect.poll(() => received.length, { timeout: 5000 }).toBe(2);
    await reader.stop();
    expect(received).toEqual([
      { type: 'reconfigure', language: 'fr', issuedAt },
      { type: 'leave', reason: 'stopped', issuedAt },
    ]);
  });
});
