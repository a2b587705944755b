import { describe, expect, it } from 'vitest';
import { subRipTranscript } from '../../../../shared/transcripts/subrip.js';

describe('subRipTranscript', () => {
  it('numbers cues from 1 with comma-millisecond timings and the speaker in the text', () => {
    expect(
      subRipTranscript([
        { start: 1, end: 2.5, text: 'Hello everyone.', speaker: 'Alice' },
        { start: 3.25, end: 4.0625, text: 'No name.', speaker: null },
      ]),
    ).toBe(
      '1\n00:00:01,000 --> 00:00:02,500\nAlice: Hello everyone.\n\n' +
        '2\n00:00:03,250 --> 00:00:04,063\nNo name.\n',
    );
  });

  it('rounds to a whole second instead of writing 1000 milliseconds', () => {
    expect(subRipTranscript([{ start: 59.9996, end: 119.99951, text: 'x', speaker: null }])).toBe(
      '1\n00:01:00,000 --> 00:02:00,000\nx\n',
    );
  });

  it('keeps each cue on one line, without blank lines or arrows that read as timings', () => {
    const srt = subRipTranscript([
      { start: 1, end: 2, text: 'one\n\ntwo --> three ---> four -> five', speaker: 'A-->B' },
    ]);
    expect(srt).toBe('1\n00:00:01,000 --> 00:00:02,000\nA--＞B: one two --＞ three ---＞ four -＞ five\n');
    expect(srt.split('\n').filter((line) => line.includes('-->'))).toHaveLength(1);
  });

  it('writes markup characters as look-alikes, so players render no tags or override blocks', () => {
    const srt = subRipTranscript([
      {
        start: 1,
        end: 2,
        text: '<script>alert(1)</script> <b>bold</b> <font color="red">red</font> {\\an8}top',
        speaker: '<i>Eve</i>',
      },
    ]);
    expect(srt).toBe(
      '1\n00:00:01,000 --> 00:00:02,000\n' +
        '＜i＞Eve＜/i＞: ＜script＞alert(1)＜/script＞ ＜b＞bold＜/b＞ ＜font color="red"＞red＜/font＞ ｛\\an8｝top\n',
    );
    expect(srt.split('\n')[2]).not.toMatch(/[<>{}]/);
  });

  it('skips empty segments, keeps the order given, numbers only what it writes', () => {
    expect(
      subRipTranscript([
        { start: 7, end: 8, text: 'later', speaker: null },
        { start: 2, end: 3, text: '\n', speaker: 'Ann' },
        { start: 5, end: 6, text: 'earlier', speaker: null },
      ]),
    ).toBe('1\n00:00:07,000 --> 00:00:08,000\nlater\n\n2\n00:00:05,000 --> 00:00:06,000\nearlier\n');
    expect(subRipTranscript([])).toBe('');
  });

  it('writes hours past 24 and 99', () => {
    expect(subRipTranscript([{ start: 360_000.5, end: 360_001, text: 'x', speaker: null }])).toContain(
      '100:00:00,500 --> 100:00:01,000',
    );
  });
});
