import { describe, expect, it } from 'vitest';
import { normaliseWords, wordErrorRate } from '../../support/wer.js';

describe('wordErrorRate', () => {
  it('ignores case and punctuation', () => {
    expect(normaliseWords("Hello, World! Don't stop.")).toEqual(['hello', 'world', "don't", 'stop']);
    expect(wordErrorRate('Hello, world.', 'hello world').rate).toBe(0);
  });

  it('counts substitutions, deletions and insertions', () => {
    const result = wordErrorRate(
      'we met at noon on the third of may',
      'we met at moon the third of may again',
    );
    expect(result).toEqual({
      rate: 3 / 9,
      substitutions: 1,
      deletions: 1,
      insertions: 1,
      referenceWords: 9,
      hypothesisWords: 9,
    });
  });

  it('handles empty texts', () => {
    expect(wordErrorRate('', '').rate).toBe(0);
    expect(wordErrorRate('', 'noise').rate).toBe(1);
    expect(wordErrorRate('two words', '')).toMatchObject({ rate: 1, deletions: 2 });
  });

  it('can exceed 100 % when the hypothesis adds many words', () => {
    expect(wordErrorRate('yes', 'yes yes yes').rate).toBe(2);
  });
});
