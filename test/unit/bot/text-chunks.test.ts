import { describe, expect, it } from 'vitest';
import { trimLeadingSilence } from '../../../bot/voices/silence.js';
import { speechChunks } from '../../../bot/voices/text-chunks.js';

describe('speechChunks', () => {
  it('plays sentence by sentence, keeping every word in order', () => {
    const text = 'Hello everyone. The report is ready!  Any questions?';
    expect(speechChunks(text)).toEqual(['Hello everyone.', 'The report is ready!', 'Any questions?']);
  });

  it('cuts a long first sentence at a phrase boundary so the first sound comes quickly', () => {
    const text =
      'Thanks everyone for joining today, we will review the quarterly numbers and agree on the next steps for the launch.';
    const chunks = speechChunks(text);
    expect(chunks[0]).toBe('Thanks everyone for joining today,');
    expect(chunks[0]!.length).toBeLessThanOrEqual(60);
    expect(chunks.join(' ')).toBe(text);
  });

  it('cuts at spaces when a long sentence has no phrase boundary, and never splits a word', () => {
    const text = `${'word '.repeat(80).trim()}.`;
    const chunks = speechChunks(text);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((chunk) => chunk.length <= 160)).toBe(true);
    expect(chunks.join(' ')).toBe(text);
  });

  it('gives nothing for blank text', () => {
    expect(speechChunks('   ')).toEqual([]);
  });
});

describe('trimLeadingSilence', () => {
  it('keeps only the asked-for silence before the first sound', () => {
    const samples = new Int16Array(16_000);
    samples.fill(4000, 3200);
    const trimmed = trimLeadingSilence(samples, 16_000, 10);
    expect(trimmed.length).toBe(16_000 - 3200 + 160);
    expect(trimmed[160]).toBe(4000);
    expect(trimmed[159]).toBe(0);
  });

  it('leaves silence-only and already tight clips alone', () => {
    const silent = new Int16Array(100);
    expect(trimLeadingSilence(silent, 16_000, 10)).toBe(silent);
    const tight = new Int16Array(100).fill(4000);
    expect(trimLeadingSilence(tight, 16_000, 10)).toBe(tight);
  });
});
