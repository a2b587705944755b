import { describe, expect, it } from 'vitest';
import { PocketsphinxOutputParser } from '../../../bot/engines/embedded/pocketsphinx-output.js';

// Captured from `pocketsphinx_continuous -time yes` (Debian 0.8+5prealpha).
const OUTPUT = [
  '',
  '<s> 0.000 0.540 0.999900',
  '</s> 0.550 0.790 1.000000',
  'the quick brown fox jumped over',
  '<s> 6.050 6.120 0.999800',
  'the 6.130 6.240 0.854005',
  'quick 6.250 6.520 0.287813',
  '<sil> 6.530 6.600 0.806360',
  'brown 6.610 6.870 0.559021',
  '[NOISE] 6.880 6.900 0.975795',
  'fox 6.910 7.250 0.999800',
  'jumped 7.260 7.690 0.112460',
  'to(2) 7.700 7.930 1.000000',
  '</s> 7.940 8.250 1.000000',
  'up',
  '<s> 9.000 9.100 0.998501',
  'up 9.110 9.700 0.719904',
  '++BREATH++ 9.710 9.800 1.000000',
  '</s> 9.810 9.900 1.000000',
  '',
].join('\n');

describe('PocketsphinxOutputParser', () => {
  it('turns timed tokens into utterances, skipping fillers, noise-only utterances and hypothesis lines', () => {
    const parser = new PocketsphinxOutputParser();
    const utterances = [...parser.push(OUTPUT), ...parser.end()];
    expect(utterances.map(({ text, start, end }) => ({ text, start, end }))).toEqual([
      { text: 'the quick brown fox jumped to', start: 6.13, end: 7.93 },
      { text: 'up', start: 9.11, end: 9.7 },
    ]);
    expect(utterances[0]!.words[1]).toEqual({ word: 'quick', start: 6.25, end: 6.52 });
  });

  it('copes with lines split across chunks and emits each utterance as soon as it closes', () => {
    const parser = new PocketsphinxOutputParser();
    const emitted: string[][] = [];
    for (let i = 0; i < OUTPUT.length; i += 7) {
      emitted.push(parser.push(OUTPUT.slice(i, i + 7)).map((utterance) => utterance.text));
    }
    const flat = emitted.flat();
    expect(flat).toEqual(['the quick brown fox jumped to', 'up']);
    expect(parser.end()).toEqual([]);
  });

  it('gives out an utterance cut off by the end of output', () => {
    const parser = new PocketsphinxOutputParser();
    expect(
      parser.push('hello there\n<s> 1.000 1.100 1.0\nhello 1.110 1.500 0.9\nthere 1.510 1.900 0.8'),
    ).toEqual([]);
    expect(parser.end().map((utterance) => utterance.text)).toEqual(['hello there']);
  });

  it('does not mistake a hypothesis line for a timed word', () => {
    const parser = new PocketsphinxOutputParser();
    const utterances = parser.push('one two three four\n<s> 0.0 0.1 1\none 0.2 0.3 1\n</s> 0.4 0.5 1\n');
    expect(utterances.map((utterance) => utterance.text)).toEqual(['one']);
  });
});
