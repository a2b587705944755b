import { describe, expect, it } from 'vitest';
import { UtteranceWindower, type WindowEvent } from '../../../bot/engines/openai/utterance-windower.js';

const RATE = 16_000;

/**
 * Speech-like audio: 250 ms bursts with 100 ms gaps, as syllables have (a steady tone would read as
 * noise to the VAD after a few seconds). Values alternate ±8000 so positions can be checked.
 */
function loud(seconds: number, from: number): Int16Array {
  const samples = new Int16Array(Math.round(seconds * RATE));
  for (let i = 0; i < samples.length; i++) {
    const inGap = i % (0.35 * RATE) >= 0.25 * RATE;
    samples[i] = inGap ? 0 : (i + from) % 2 === 0 ? 8000 : -8000;
  }
  return samples;
}

function quiet(seconds: number): Int16Array {
  return new Int16Array(Math.round(seconds * RATE));
}

function feed(windower: UtteranceWindower, parts: Int16Array[], chunkSeconds = 0.1): WindowEvent[] {
  const events: WindowEvent[] = [];
  for (const part of parts) {
    const size = Math.round(chunkSeconds * RATE);
    for (let i = 0; i < part.length; i += size) events.push(...windower.push(part.subarray(i, i + size)));
  }
  return events;
}

describe('UtteranceWindower', () => {
  it('sends the growing utterance every window, then the whole of it once it ends', () => {
    const windower = new UtteranceWindower({ windowSeconds: 1 });
    const events = feed(windower, [quiet(1), loud(2.6, 0), quiet(1.5)]);
    const kinds = events.map((event) => event.kind);
    expect(kinds[0]).toBe('open');
    expect(kinds[kinds.length - 1]).toBe('final');
    const audio = events.filter((event) => event.kind !== 'open');
    const lengths = audio.map((event) => (event.endSample - event.startSample) / RATE);
    // A window per second of utterance (at chunk granularity), each longer than the last.
    expect(lengths.length).toBeGreaterThanOrEqual(3);
    lengths.slice(0, -1).forEach((length, index) => {
      expect(audio[index]!.kind).toBe('partial');
      expect(length).toBeGreaterThanOrEqual(index + 1);
      expect(length).toBeLessThan(index + 1.2);
    });
    const final = audio[audio.length - 1]!;
    // The speech (1.0 s to 3.6 s) with the 0.25 s pre-roll and the 0.2 s post-roll.
    expect(final.startSample / RATE).toBeCloseTo(0.75, 1);
    expect(final.endSample / RATE).toBeCloseTo(3.8, 1);
    expect(final.samples.length).toBe(final.endSample - final.startSample);
    // The audio is what was written at those positions (the speech began at 1.0 s).
    const speechOffset = RATE - final.startSample;
    expect(final.samples[speechOffset - 1]).toBe(0);
    expect(Math.abs(final.samples[speechOffset]!)).toBe(8000);
  });

  it('gives each utterance its own number and skips windows for short ones', () => {
    const windower = new UtteranceWindower({ windowSeconds: 5 });
    const events = feed(windower, [loud(0.8, 0), quiet(1), loud(1, 0), quiet(1)]);
    expect(events.map((event) => `${event.kind} ${event.utterance}`)).toEqual([
      'open 0',
      'final 0',
      'open 1',
      'final 1',
    ]);
  });

  it('ends the open utterance on end()', () => {
    const windower = new UtteranceWindower({ windowSeconds: 5 });
    feed(windower, [quiet(0.5), loud(1, 0)]);
    const events = windower.end();
    expect(events.map((event) => event.kind)).toEqual(['final']);
    expect(windower.end()).toEqual([]);
  });

  it('cuts a monologue at the maximum utterance length and carries on', () => {
    const windower = new UtteranceWindower({ windowSeconds: 10, maxUtteranceSeconds: 3 });
    const events = feed(windower, [loud(7, 0), quiet(1)]);
    expect(events.map((event) => `${event.kind} ${event.utterance}`)).toEqual([
      'open 0',
      'final 0',
      'open 1',
      'final 1',
      'open 2',
      'final 2',
    ]);
  });

  it('sends nothing for silence, whatever the chunk size', () => {
    const windower = new UtteranceWindower({ windowSeconds: 1 });
    expect(feed(windower, [quiet(5)], 1.3)).toEqual([]);
    expect(windower.end()).toEqual([]);
  });

  it('produces the same utterances from one big write as from small ones', () => {
    const parts = [quiet(0.7), loud(1.4, 0), quiet(1), loud(0.9, 0), quiet(1)];
    const small = feed(new UtteranceWindower({ windowSeconds: 30 }), parts, 0.02).filter(
      (e) => e.kind === 'final',
    );
    const big = feed(new UtteranceWindower({ windowSeconds: 30 }), parts, 10).filter(
      (e) => e.kind === 'final',
    );
    expect(big.map((e) => e.kind !== 'open' && [e.startSample, e.endSample])).toEqual(
      small.map((e) => e.kind !== 'open' && [e.startSample, e.endSample]),
    );
  });
});
