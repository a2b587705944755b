import { describe, expect, it } from 'vitest';
import { plainTextTranscript } from '../../../../shared/transcripts/plain-text.js';

describe('plainTextTranscript', () => {
  it('writes one line per segment: start time, speaker and text', () => {
    const text = plainTextTranscript([
      { start: 0.4, end: 2, text: 'Hello everyone.', speaker: 'Alice' },
      { start: 62.9, end: 64, text: 'Hi\nthere, <Alice> & all', speaker: 'Bob "B"' },
      { start: 3725, end: 3726, text: 'Nobody named me.', speaker: null },
    ]);
    expect(text).toBe(
      '[00:00:00] Alice: Hello everyone.\n' +
        '[00:01:02] Bob "B": Hi there, <Alice> & all\n' +
        '[01:02:05] Nobody named me.\n',
    );
  });

  it('keeps the given order, skips empty segments and is empty without segments', () => {
    expect(
      plainTextTranscript([
        { start: 9, end: 10, text: 'second', speaker: null },
        { start: 5, end: 6, text: ' ', speaker: 'Ann' },
        { start: 1, end: 2, text: 'first', speaker: null },
      ]),
    ).toBe('[00:00:09] second\n[00:00:01] first\n');
    expect(plainTextTranscript([])).toBe('');
  });

  it('shows hours past a day', () => {
    expect(plainTextTranscript([{ start: 90_061.5, end: 90_062, text: 'late', speaker: null }])).toBe(
      '[25:01:01] late\n',
    );
  });
});
