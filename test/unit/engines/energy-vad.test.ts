import { describe, expect, it } from 'vitest';
import { EnergyVad, type VadEvent } from '../../../bot/audio-utils/energy-vad.js';

const RATE = 16_000;

/** A 220 Hz tone at `db` dBFS (RMS), or digital silence. */
function tone(seconds: number, db: number): Int16Array {
  const samples = new Int16Array(Math.round(seconds * RATE));
  const amplitude = 10 ** (db / 20) * Math.SQRT2 * 32767;
  for (let i = 0; i < samples.length; i++)
    samples[i] = Math.round(amplitude * Math.sin((2 * Math.PI * 220 * i) / RATE));
  return samples;
}

function quiet(seconds: number): Int16Array {
  return new Int16Array(Math.round(seconds * RATE));
}

/** Deterministic white noise at roughly `db` dBFS. */
function noise(seconds: number, db: number): Int16Array {
  const samples = new Int16Array(Math.round(seconds * RATE));
  const amplitude = 10 ** (db / 20) * Math.sqrt(3) * 32767;
  let state = 12345;
  for (let i = 0; i < samples.length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    samples[i] = Math.round(amplitude * ((state / 0x7fffffff) * 2 - 1));
  }
  return samples;
}

function run(parts: Int16Array[], chunk = 1234): VadEvent[] {
  const vad = new EnergyVad();
  const all = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  const events: VadEvent[] = [];
  for (let i = 0; i < all.length; i += chunk) events.push(...vad.push(all.subarray(i, i + chunk)));
  events.push(...vad.end());
  return events;
}

const seconds = (event: VadEvent | undefined) => (event ? event.sample / RATE : Number.NaN);

describe('EnergyVad', () => {
  it('hears nothing in digital silence', () => {
    expect(run([quiet(3)])).toEqual([]);
  });

  it('marks where speech starts and ends, whatever the chunk size', () => {
    for (const chunk of [160, 1234, 48_000]) {
      const events = run([quiet(0.5), tone(1, -20), quiet(1.5)], chunk);
      expect(events.map((event) => event.type)).toEqual(['speechStart', 'speechEnd']);
      expect(seconds(events[0])).toBeCloseTo(0.5, 1);
      expect(seconds(events[1])).toBeCloseTo(1.5, 1);
    }
  });

  it('keeps an utterance whole across a pause between words, splits at a real silence', () => {
    const events = run([tone(0.6, -20), quiet(0.3), tone(0.6, -20), quiet(1.2), tone(0.5, -25), quiet(1)]);
    expect(events.map((event) => event.type)).toEqual([
      'speechStart',
      'speechEnd',
      'speechStart',
      'speechEnd',
    ]);
    expect(seconds(events[1])).toBeCloseTo(1.5, 1);
    expect(seconds(events[2])).toBeCloseTo(2.7, 1);
  });

  it('closes an open utterance at the end of the stream', () => {
    const events = run([quiet(0.2), tone(0.8, -20)]);
    expect(events.map((event) => event.type)).toEqual(['speechStart', 'speechEnd']);
    expect(seconds(events[1])).toBeCloseTo(1.0, 1);
  });

  it('ignores a click shorter than the start time', () => {
    expect(run([quiet(0.5), tone(0.03, -10), quiet(1)])).toEqual([]);
  });

  it('learns a steady noise floor louder than the absolute threshold and still hears speech over it', () => {
    const events = run([noise(6, -40), tone(1, -15), noise(2, -40)]);
    const starts = events.filter((event) => event.type === 'speechStart');
    // The noise may open an utterance at first, but it must end, and the speech must be heard.
    expect(starts.length).toBeGreaterThanOrEqual(1);
    const last = starts[starts.length - 1]!;
    expect(seconds(last)).toBeCloseTo(6, 0);
    const lastEnd = events[events.length - 1]!;
    expect(lastEnd.type).toBe('speechEnd');
    expect(seconds(lastEnd)).toBeLessThan(7.5);
  });
});
