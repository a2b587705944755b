import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AudioWantedRefresher } from '../../../api/ws/audio-wanted.js';
import { AUDIO_WANTED_REFRESH_MS, AUDIO_WANTED_TTL_MS } from '../../../shared/contract/audio-stream.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('audio-wanted-test', 'silent');

/** A Redis that records each SET, or fails it while `fails` is set. */
function fakeRedis() {
  const fake = {
    sets: [] as unknown[][],
    fails: false,
    set: async (...args: unknown[]) => {
      fake.sets.push(args);
      if (fake.fails) throw new Error('connection lost');
      return 'OK';
    },
  };
  return fake;
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("an audio socket's wanted key", () => {
  it('is set at once with its TTL, refreshed while wanted, moved to a new bot, and left to expire', async () => {
    const redis = fakeRedis();
    const wanted = new AudioWantedRefresher(redis as never, log);
    await wanted.want('p:bot:s1:audio:wanted');
    expect(redis.sets).toEqual([['p:bot:s1:audio:wanted', '1', 'PX', AUDIO_WANTED_TTL_MS]]);
    // The same bot again (the status check every 2 s) sets nothing more.
    await wanted.want('p:bot:s1:audio:wanted');
    expect(redis.sets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(AUDIO_WANTED_REFRESH_MS);
    expect(redis.sets.map(([key]) => key)).toEqual(['p:bot:s1:audio:wanted', 'p:bot:s1:audio:wanted']);

    // A relaunched bot: its key is set at once, the old one no longer refreshed.
    await wanted.want('p:bot:s2:audio:wanted');
    await vi.advanceTimersByTimeAsync(AUDIO_WANTED_REFRESH_MS);
    expect(redis.sets.slice(2).map(([key]) => key)).toEqual([
      'p:bot:s2:audio:wanted',
      'p:bot:s2:audio:wanted',
    ]);

    // Closed: no more SETs (and no DEL: another socket may listen), even for a late want.
    wanted.stop();
    await wanted.want('p:bot:s3:audio:wanted');
    await vi.advanceTimersByTimeAsync(3 * AUDIO_WANTED_REFRESH_MS);
    expect(redis.sets).toHaveLength(4);
  });

  it('logs a failed SET and tries again at the next refresh', async () => {
    const redis = fakeRedis();
    redis.fails = true;
    const warn = vi.fn();
    const wanted = new AudioWantedRefresher(redis as never, { warn } as never);
    await expect(wanted.want('p:bot:s1:audio:wanted')).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      { err: expect.any(Error) },
      'could not tell the bot that someone listens to its audio',
    );
    redis.fails = false;
    await vi.advanceTimersByTimeAsync(AUDIO_WANTED_REFRESH_MS);
    expect(redis.sets).toHaveLength(2);
    wanted.stop();
  });
});
