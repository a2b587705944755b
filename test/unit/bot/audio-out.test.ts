import { describe, expect, it } from 'vitest';
import { MAX_APPENDS_IN_FLIGHT, RedisAudioOut } from '../../../bot/audio/audio-out.js';
import { AUDIO_STREAM_MAXLEN, parseAudioStreamEntry } from '../../../shared/contract/audio-stream.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('audio-out-test', 'silent');
const CHUNK = { start: 1, end: 1.2, startWallMs: 1000, capturedAtMs: 1250, speaker: 'Alice' };

/** A Redis whose XADDs stay pending until released (a slow or absent Redis). */
function slowRedis() {
  const calls: Array<{ args: unknown[]; release: () => void }> = [];
  return {
    calls,
    xadd: (...args: unknown[]) =>
      new Promise<string>((resolve) => {
        calls.push({ args, release: () => resolve('1-0') });
      }),
  };
}

describe("the bot's audio publisher", () => {
  it('appends each chunk with its number, trimming the stream to its bound', () => {
    const redis = slowRedis();
    const out = new RedisAudioOut(redis as never, 'p:bot:s:audio', log);
    out.publish(CHUNK, new Int16Array([1, -2, 3]));
    const [call] = redis.calls;
    expect(call!.args.slice(0, 5)).toEqual(['p:bot:s:audio', 'MAXLEN', '~', AUDIO_STREAM_MAXLEN, '*']);
    const fields = (call!.args.slice(5) as Array<string | Buffer>).map((value) => Buffer.from(value));
    const entry = parseAudioStreamEntry(fields);
    expect(entry?.header).toEqual({ ...CHUNK, seq: 0 });
    expect([
      ...new Int16Array(entry!.pcm.buffer.slice(entry!.pcm.byteOffset, entry!.pcm.byteOffset + 6)),
    ]).toEqual([1, -2, 3]);
  });

  it('never waits on more than a few appends: a stalled Redis costs chunks, not memory or time', async () => {
    const redis = slowRedis();
    const out = new RedisAudioOut(redis as never, 'stream', log);
    for (let index = 0; index < 100; index += 1) out.publish(CHUNK, new Int16Array(3200));
    expect(redis.calls).toHaveLength(MAX_APPENDS_IN_FLIGHT);
    expect(out.stats()).toEqual({
      published: MAX_APPENDS_IN_FLIGHT,
      dropped: 100 - MAX_APPENDS_IN_FLIGHT,
      failed: 0,
    });

    // Redis answers again: publishing resumes, and the numbers show the gap.
    for (const call of redis.calls.splice(0)) call.release();
    await new Promise((resolve) => setImmediate(resolve));
    out.publish(CHUNK, new Int16Array(3200));
    const fields = (redis.calls[0]!.args.slice(5) as Array<string | Buffer>).map((value) =>
      Buffer.from(value),
    );
    expect(parseAudioStreamEntry(fields)?.header.seq).toBe(100);
  });

  it('counts a failed append and goes on', async () => {
    let calls = 0;
    const out = new RedisAudioOut(
      {
        xadd: async () => {
          calls += 1;
          throw new Error('NOPERM');
        },
      } as never,
      'stream',
      log,
    );
    out.publish(CHUNK, new Int16Array(10));
    out.publish(CHUNK, new Int16Array(10));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(2);
    expect(out.stats().failed).toBe(2);
  });
});
