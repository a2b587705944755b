import { describe, expect, it } from 'vitest';
import { escapeWebVtt, webVttTranscript } from '../../../../shared/transcripts/webvtt.js';

describe('webVttTranscript', () => {
  it('starts with WEBVTT and writes numbered cues with dot-millisecond timings and voice spans', () => {
    expect(
      webVttTranscript([
        { start: 1, end: 2.5, text: 'Hello everyone.', speaker: 'Alice Smith' },
        { start: 3.0004, end: 4.9996, text: 'No name.', speaker: null },
      ]),
    ).toBe(
      'WEBVTT\n\n' +
        '1\n00:00:01.000 --> 00:00:02.500\n<v Alice Smith>Hello everyone.</v>\n\n' +
        '2\n00:00:03.000 --> 00:00:05.000\nNo name.\n',
    );
  });

  it('escapes &, < and > in text and voice names, so no tag or arrow gets through', () => {
    const vtt = webVttTranscript([
      { start: 1, end: 2, text: 'a <b>bold</b> & x --> y', speaker: 'Tom & <Jerry>' },
    ]);
    expect(vtt).toBe(
      'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v Tom &amp; &lt;Jerry&gt;>a &lt;b&gt;bold&lt;/b&gt; &amp; x --&gt; y</v>\n',
    );
    expect(escapeWebVtt('&amp;')).toBe('&amp;amp;');
  });

  it('never puts a blank line or a second timing line inside a cue', () => {
    const vtt = webVttTranscript([
      { start: 1, end: 2, text: 'one\n\n2\n00:00:05.000 --> 00:00:06.000\ninjected', speaker: 'A\n\nB' },
    ]);
    const cueLines = vtt.split('\n\n')[1]!.split('\n');
    expect(cueLines).toEqual([
      '1',
      '00:00:01.000 --> 00:00:02.000',
      '<v A B>one 2 00:00:05.000 --&gt; 00:00:06.000 injected</v>',
      '',
    ]);
  });

  it('is the header alone for an empty transcript or one with only empty segments', () => {
    expect(webVttTranscript([])).toBe('WEBVTT\n\n');
    expect(webVttTranscript([{ start: 1, end: 2, text: ' \r\n', speaker: 'Ann' }])).toBe('WEBVTT\n\n');
  });

  it('keeps the given order and writes hours past a day', () => {
    const vtt = webVttTranscript([
      { start: 90_000, end: 90_001.25, text: 'b', speaker: null },
      { start: 1, end: 2, text: 'a', speaker: null },
    ]);
    expect(vtt).toBe(
      'WEBVTT\n\n1\n25:00:00.000 --> 25:00:01.250\nb\n\n2\n00:00:01.000 --> 00:00:02.000\na\n',
    );
  });
});
