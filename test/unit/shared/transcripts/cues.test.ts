import { describe, expect, it } from 'vitest';
import { type ExportSegment, oneLine, toCues } from '../../../../shared/transcripts/cues.js';

const segment = (
  start: number,
  text: string,
  speaker: string | null = 'Ann',
  end = start + 1,
): ExportSegment => ({
  start,
  end,
  text,
  speaker,
});

describe('oneLine', () => {
  it('collapses line breaks, tabs, control characters and whitespace runs into single spaces', () => {
    expect(oneLine('  first line\r\n\r\nsecond\rthird\nfourth\u2028fifth\u2029sixth  ')).toBe(
      'first line second third fourth fifth sixth',
    );
    expect(oneLine('a\tb\u0001c\u007fd\u0085e   f\u00a0g')).toBe('a b c d e f g');
    expect(oneLine('emoji 😀 and 会议 stay')).toBe('emoji 😀 and 会议 stay');
  });
});

describe('toCues', () => {
  it('keeps the order given, even when it is not sorted by start', () => {
    const cues = toCues([segment(5, 'b'), segment(1, 'a'), segment(5, 'c')]);
    expect(cues.map((cue) => cue.text)).toEqual(['b', 'a', 'c']);
  });

  it('leaves out segments with no words, and an empty transcript has no cues', () => {
    expect(
      toCues([segment(1, ''), segment(2, '  \n\t '), segment(3, 'words')]).map((cue) => cue.text),
    ).toEqual(['words']);
    expect(toCues([])).toEqual([]);
  });

  it('treats a null or blank speaker as nobody and cleans a named one', () => {
    const cues = toCues([segment(1, 'x', null), segment(2, 'y', ' \n '), segment(3, 'z', ' Ann\nLee ')]);
    expect(cues.map((cue) => cue.speaker)).toEqual([null, null, 'Ann Lee']);
  });

  it('rounds times to milliseconds, never ending a cue before it starts', () => {
    expect(
      toCues([segment(1.0004, 'a', null, 2.0005), segment(-1, 'b', null, 0.5), segment(4, 'c', null, 3)]),
    ).toEqual([
      { startMs: 1000, endMs: 2001, speaker: null, text: 'a' },
      { startMs: 0, endMs: 500, speaker: null, text: 'b' },
      { startMs: 4000, endMs: 4000, speaker: null, text: 'c' },
    ]);
  });
});
