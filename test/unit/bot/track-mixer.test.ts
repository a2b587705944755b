import { afterEach, describe, expect, it } from 'vitest';
import { TRACK_MIXER_SCRIPT } from '../../../bot/audio/track-mixer-page-script.js';
import { rms, toneShare } from '../../support/tone.js';

const RATE = 16_000;
const CHUNK = 3_200;
const TIME_ORIGIN = Date.parse('2026-12-02T10:00:00.000Z');

interface Delivered {
  pcm: Int16Array;
  wall: number;
  unheard: number;
}

/** A 10 ms frame as the page's processor gives it: f32 planes at `rate`, stamped in microseconds. */
function frame(timestampUs: number, samples: Float32Array, rate = 48_000) {
  return {
    timestamp: timestampUs,
    sampleRate: rate,
    numberOfFrames: samples.length,
    numberOfChannels: 1,
    copyTo(destination: Float32Array) {
      destination.set(samples);
    },
    close() {},
  };
}

function tone(frequency: number, startSeconds: number, count: number, rate = 48_000, level = 0.3) {
  const samples = new Float32Array(count);
  for (let i = 0; i < count; i += 1)
    samples[i] = level * Math.sin(2 * Math.PI * frequency * (startSeconds + i / rate));
  return samples;
}

/**
 * The page script run in Node against a fake page: a clock the test moves, tracks whose frames the
 * test hands over, and the interval it sets kept so the test can fire it.
 */
function loadMixer() {
  const clock = { now: 0 };
  const intervals: (() => void)[] = [];
  const queues = new Map<string, { frames: unknown[]; waiting: ((value: unknown) => void) | null }>();
  class FakeProcessor {
    readonly readable: { getReader(): { read(): Promise<unknown> } };
    constructor({ track }: { track: { id: string } }) {
      const queue = { frames: [] as unknown[], waiting: null as ((value: unknown) => void) | null };
      queues.set(track.id, queue);
      this.readable = {
        getReader: () => ({
          read: () =>
            new Promise((resolve) => {
              const next = queue.frames.shift();
              if (next !== undefined) resolve(next);
              else queue.waiting = resolve;
            }),
        }),
      };
    }
  }
  const performance = { timeOrigin: TIME_ORIGIN, now: () => clock.now };
  const factory = new Function(
    'performance',
    'setInterval',
    'MediaStreamTrackProcessor',
    'console',
    `${TRACK_MIXER_SCRIPT}; return createTrackMixer;`,
  )(performance, (task: () => void) => intervals.push(task), FakeProcessor, { warn() {} });
  const delivered: Delivered[] = [];
  const mixer = factory({
    sampleRate: RATE,
    chunk: CHUNK,
    deliver: (buffer: ArrayBuffer, wall: number, unheard: number) =>
      delivered.push({ pcm: new Int16Array(buffer), wall, unheard }),
  });
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return {
    mixer,
    delivered,
    clock,
    /** Hands a track its frame and lets the mixer's read loop take it. */
    async give(trackId: string, item: unknown) {
      const queue = queues.get(trackId)!;
      const value = { value: item, done: item === null };
      if (queue.waiting) {
        const resolve = queue.waiting;
        queue.waiting = null;
        resolve(value);
      } else queue.frames.push(value);
      await flush();
    },
    /** Moves the page's clock and fires its interval. */
    async tick(toMs: number) {
      clock.now = toMs;
      for (const task of intervals) task();
      await flush();
    },
  };
}

/** `seconds` of a tone on a track in 10 ms frames stamped from `fromMs`, the clock following them. */
async function play(
  page: ReturnType<typeof loadMixer>,
  trackId: string,
  frequency: number,
  fromMs: number,
  seconds: number,
  jitterMs = 0,
) {
  for (let i = 0; i < seconds * 100; i += 1) {
    const atMs = fromMs + i * 10;
    page.clock.now = Math.max(page.clock.now, atMs + 10);
    const stampMs = atMs + jitterMs * Math.sin(i * 1.7);
    await page.give(trackId, frame(Math.round(stampMs * 1000), tone(frequency, atMs / 1000, 480)));
  }
}

describe('the track mixer (the track-processor capture)', () => {
  let page: ReturnType<typeof loadMixer>;
  afterEach(() => {
    page.delivered.length = 0;
  });

  it('turns one 48 kHz track into continuous 16 kHz chunks at the times its frames were stamped, whatever their jitter', async () => {
    page = loadMixer();
    page.mixer.add({ id: 'a' });
    // Stamps a fraction of a millisecond off, as a receiver's are: the frames still follow on.
    await play(page, 'a', 440, 1000, 3, 0.4);
    const chunks = page.delivered;
    expect(chunks.length).toBeGreaterThanOrEqual(14);
    chunks.forEach((chunk, i) => {
      expect(chunk.pcm.length).toBe(CHUNK);
      expect(chunk.wall).toBeCloseTo(TIME_ORIGIN + 1000 + i * 200, 6);
      expect(chunk.unheard).toBe(0);
    });
    for (const chunk of chunks.slice(1)) {
      expect(rms(chunk.pcm)).toBeGreaterThan(5000);
      expect(toneShare(chunk.pcm, 440)).toBeGreaterThan(0.9);
    }
  });

  it('mixes two tracks by their stamps, each tone heard', async () => {
    page = loadMixer();
    page.mixer.add({ id: 'a' });
    page.mixer.add({ id: 'b' });
    for (let i = 0; i < 200; i += 1) {
      const atMs = 1000 + i * 10;
      page.clock.now = atMs + 10;
      await page.give('a', frame(atMs * 1000, tone(440, atMs / 1000, 480)));
      await page.give('b', frame(atMs * 1000, tone(1320, atMs / 1000, 480)));
    }
    const middle = page.delivered.slice(1, -1);
    expect(middle.length).toBeGreaterThanOrEqual(6);
    for (const chunk of middle) {
      expect(toneShare(chunk.pcm, 440)).toBeGreaterThan(0.3);
      expect(toneShare(chunk.pcm, 1320)).toBeGreaterThan(0.3);
    }
  });

  it('puts silence where the receiver skipped, keeps what follows at its own time, and counts the gap as unheard', async () => {
    page = loadMixer();
    page.mixer.add({ id: 'a' });
    await play(page, 'a', 440, 1000, 1);
    // Half a second the receiver never played, then the tone again.
    await play(page, 'a', 880, 2500, 2);
    const chunks = page.delivered;
    const at = (wallOffsetMs: number) =>
      chunks.find((chunk) => chunk.wall === TIME_ORIGIN + 1000 + wallOffsetMs)!;
    // The chunks keep following each other: no time was spliced out.
    for (const [i, chunk] of chunks.entries())
      expect(chunk.wall).toBeCloseTo(TIME_ORIGIN + 1000 + i * 200, 6);
    expect(rms(at(1200).pcm)).toBeLessThan(50);
    expect(toneShare(at(1600).pcm, 880)).toBeGreaterThan(0.9);
    const unheard = chunks.reduce((sum, chunk) => sum + chunk.unheard, 0);
    expect(unheard / RATE).toBeCloseTo(0.5, 2);
  });

  it('gives silence as wall time passes when no track is live, none of it unheard', async () => {
    page = loadMixer();
    page.mixer.add({ id: 'a' });
    await play(page, 'a', 440, 1000, 1);
    await page.give('a', null);
    const before = page.delivered.length;
    // The page's clock moves on 2 s past the track's end: all but the last half second is handed on.
    await page.tick(4000);
    const after = page.delivered.slice(before);
    expect(after.length).toBe(Math.floor((3500 - 1000) / 200) - before);
    for (const chunk of after.slice(1)) {
      expect(rms(chunk.pcm)).toBe(0);
      expect(chunk.unheard).toBe(0);
    }
  });

  it('goes on without a track that stopped giving frames, once it is a second behind the others', async () => {
    page = loadMixer();
    page.mixer.add({ id: 'a' });
    page.mixer.add({ id: 'b' });
    for (let i = 0; i < 300; i += 1) {
      const atMs = 1000 + i * 10;
      page.clock.now = atMs + 10;
      await page.give('a', frame(atMs * 1000, tone(440, atMs / 1000, 480)));
      // Track b goes quiet for good after its first half second.
      if (i < 50) await page.give('b', frame(atMs * 1000, tone(1320, atMs / 1000, 480)));
    }
    // Three seconds of a, all handed on (waiting for b would have held all but its first half second).
    const handedSeconds = (page.delivered.length * CHUNK) / RATE;
    expect(handedSeconds).toBeGreaterThanOrEqual(2.8);
    expect(page.mixer.now()).toBeCloseTo(3, 2);
  });
});
