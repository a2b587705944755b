import { describe, expect, it } from 'vitest';
import { MAX_APPENDS_IN_FLIGHT, RedisAudioOut } from '../../../bot/audio/audio-out.js';
import {
  AUDIO_STREAM_MAXLEN,
  AUDIO_WANTED_CHECK_MS,
  parseAudioStreamEntry,
} from '../../../shared/contract/audio-stream.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('audio-out-test', 'silent');
const CHUNK = { start: 1, end: 1.2, startWallMs: 1000, capturedAtMs: 1250, speaker: 'Alice' };
const KEYS = { stream: 'p:bot:s:audio', wanted: 'p:bot:s:audio:wanted' };

/**
 * A Redis whose XADDs stay pending until released (a slow or absent Redis), and whose EXISTS
 * answers whether `listening` says someone listens, or fails while `existsFails` is set.
 */
function fakeRedis(listening = true) {
  const calls: Array<{ args: unknown[]; release: () => void }> = [];
  const checks: string[] = [];
  const fake = {
    calls,
    checks,
    listening,
    existsFails: false,
    xadd: (...args: unknown[]) =>
      new Promise<string>((resolve) => {
        calls.push({ args, release: () => resolve('1-0') });
      }),
    exists: async (key: string) => {
      checks.push(key);
      if (fake.existsFails) throw new Error('connection lost');
      return fake.listening ? 1 : 0;
    },
  };
  return fake;
}

/** A clock the test moves by hand. */
function clock() {
  const time = { now: 1_000_000 };
  return { time, now: () => time.now };
}

/** A publisher that already asked once whether anyone listens (as the first chunk makes it ask). */
async function checkedOut(redis: ReturnType<typeof fakeRedis>, now?: () => number) {
  const out = new RedisAudioOut(redis as never, KEYS, log, now);
  await out.checkListeners();
  return out;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const seqOf = (call: { args: unknown[] }) =>
  parseAudioStreamEntry((call.args.slice(5) as Array<string | Buffer>).map((value) => Buffer.from(value)))
    ?.header.seq;

describe("the bot's audio publisher", () => {
  it('appends each chunk with its number, trimming the stream to its bound', async () => {
    const redis = fakeRedis();
    const out = await checkedOut(redis);
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

  it('publishes only while someone listens: the rest is counted unheard, and `seq` counts every chunk', async () => {
    const redis = fakeRedis(false);
    const { time, now } = clock();
    const out = new RedisAudioOut(redis as never, KEYS, log, now);
    // The first chunk asks; nothing is sent before an answer says someone listens.
    out.publish(CHUNK, new Int16Array(10));
    expect(redis.checks).toEqual([KEYS.wanted]);
    await settle();
    for (let index = 0; index < 4; index += 1) out.publish(CHUNK, new Int16Array(10));
    expect(redis.calls).toEqual([]);
    expect(out.stats()).toEqual({ published: 0, dropped: 0, unheard: 5, failed: 0 });

    // Someone opens a socket: the next check finds the key, and chunks flow from then on.
    redis.listening = true;
    time.now += AUDIO_WANTED_CHECK_MS;
    out.publish(CHUNK, new Int16Array(10));
    await settle();
    out.publish(CHUNK, new Int16Array(10));
    out.publish(CHUNK, new Int16Array(10));
    expect(redis.calls.map(seqOf)).toEqual([6, 7]);
    expect(out.stats()).toEqual({ published: 2, dropped: 0, unheard: 6, failed: 0 });

    // The last listener left (its key expired): publishing stops at the next check.
    redis.listening = false;
    time.now += AUDIO_WANTED_CHECK_MS;
    out.publish(CHUNK, new Int16Array(10));
    await settle();
    out.publish(CHUNK, new Int16Array(10));
    expect(redis.calls).toHaveLength(3);
    expect(out.stats()).toEqual({ published: 3, dropped: 0, unheard: 7, failed: 0 });
  });

  it('asks at most once per check interval, and never twice at once', async () => {
    const redis = fakeRedis();
    const { time, now } = clock();
    const out = new RedisAudioOut(redis as never, KEYS, log, now);
    for (let index = 0; index < 10; index += 1) out.publish(CHUNK, new Int16Array(10));
    expect(redis.checks).toHaveLength(1);
    await settle();
    time.now += AUDIO_WANTED_CHECK_MS - 1;
    for (let index = 0; index < 10; index += 1) out.publish(CHUNK, new Int16Array(10));
    expect(redis.checks).toHaveLength(1);
    time.now += 1;
    out.publish(CHUNK, new Int16Array(10));
    expect(redis.checks).toHaveLength(2);

    // A check Redis does not answer is not asked again on top of itself.
    let answer: (count: number) => void = () => undefined;
    const stalled = fakeRedis();
    const stalledOut = new RedisAudioOut(
      {
        ...stalled,
        exists: (key: string) => {
          stalled.checks.push(key);
          return new Promise<number>((resolve) => {
            answer = resolve;
          });
        },
      } as never,
      KEYS,
      log,
      now,
    );
    stalledOut.publish(CHUNK, new Int16Array(10));
    time.now += 5 * AUDIO_WANTED_CHECK_MS;
    stalledOut.publish(CHUNK, new Int16Array(10));
    expect(stalled.checks).toHaveLength(1);
    answer(1);
    await settle();
    time.now += AUDIO_WANTED_CHECK_MS;
    stalledOut.publish(CHUNK, new Int16Array(10));
    expect(stalled.checks).toHaveLength(2);
    expect(stalledOut.stats()).toMatchObject({ published: 1, unheard: 2 });
  });

  it('keeps the last answer when a check fails', async () => {
    const redis = fakeRedis();
    const { time, now } = clock();
    const out = await checkedOut(redis, now);
    redis.existsFails = true;
    time.now += AUDIO_WANTED_CHECK_MS;
    out.publish(CHUNK, new Int16Array(10));
    await settle();
    out.publish(CHUNK, new Int16Array(10));
    expect(redis.checks).toHaveLength(2);
    expect(redis.calls).toHaveLength(2);

    // Nobody listening, then a failing check: still nobody.
    redis.existsFails = false;
    redis.listening = false;
    time.now += AUDIO_WANTED_CHECK_MS;
    await out.checkListeners();
    redis.existsFails = true;
    time.now += AUDIO_WANTED_CHECK_MS;
    out.publish(CHUNK, new Int16Array(10));
    await settle();
    out.publish(CHUNK, new Int16Array(10));
    expect(redis.calls).toHaveLength(2);
    expect(out.stats()).toEqual({ published: 2, dropped: 0, unheard: 2, failed: 0 });
  });

  it('publishes always when Redis refuses the question to this bot (a user made by an older worker)', async () => {
    const redis = fakeRedis(false);
    const { time, now } = clock();
    redis.exists = async (key: string) => {
      redis.checks.push(key);
      throw new Error("NOPERM User p:bot:s has no permissions to run the 'exists' command");
    };
    const out = await checkedOut(redis, now);
    for (let chunk = 0; chunk < 3; chunk++) {
      time.now += AUDIO_WANTED_CHECK_MS;
      out.publish(CHUNK, new Int16Array(10));
    }
    await settle();
    expect(redis.calls).toHaveLength(3);
    // Asked once: the answer will not change.
    expect(redis.checks).toHaveLength(1);
    expect(out.stats()).toMatchObject({ published: 3, unheard: 0 });
  });

  it('never waits on more than a few appends: a stalled Redis costs chunks, not memory or time', async () => {
    const redis = fakeRedis();
    const out = await checkedOut(redis);
    for (let index = 0; index < 100; index += 1) out.publish(CHUNK, new Int16Array(3200));
    expect(redis.calls).toHaveLength(MAX_APPENDS_IN_FLIGHT);
    expect(out.stats()).toEqual({
      published: MAX_APPENDS_IN_FLIGHT,
      dropped: 100 - MAX_APPENDS_IN_FLIGHT,
      unheard: 0,
      failed: 0,
    });

    // Redis answers again: publishing resumes, and the numbers show the gap.
    for (const call of redis.calls.splice(0)) call.release();
    await settle();
    out.publish(CHUNK, new Int16Array(3200));
    expect(seqOf(redis.calls[0]!)).toBe(100);
  });

  it('counts a failed append and goes on', async () => {
    let calls = 0;
    const out = new RedisAudioOut(
      {
        exists: async () => 1,
        xadd: async () => {
          calls += 1;
          throw new Error('NOPERM');
        },
      } as never,
      KEYS,
      log,
    );
    await out.checkListeners();
    out.publish(CHUNK, new Int16Array(10));
    out.publish(CHUNK, new Int16Array(10));
    await settle();
    expect(calls).toBe(2);
    expect(out.stats().failed).toBe(2);
  });
});
