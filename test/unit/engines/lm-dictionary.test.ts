import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  dictionaryOf,
  FULL_DICTIONARY,
  LANGUAGE_MODEL,
  trieLanguageModelWords,
} from '../../../bot/engines/embedded/lm-dictionary.js';

/** A trie model's header and word list around some opaque n-gram data, as sphinxbase writes it. */
function trieModel(words: string[], order = 3): Buffer {
  const counts = Buffer.alloc(4 * order);
  counts.writeUInt32LE(words.length, 0);
  for (let n = 1; n < order; n += 1) counts.writeUInt32LE(7 * n, 4 * n);
  return Buffer.concat([
    Buffer.from('Trie Language Model', 'latin1'),
    Buffer.from([order]),
    counts,
    Buffer.from([1, 0, 0, 0, 0xaf, 0xb1, 0x25, 0xc8, 3, 0]), // quantization and arrays
    Buffer.from(`${words.join('\0')}\0`, 'utf8'),
  ]);
}

describe("the language model's dictionary", () => {
  it('reads the unigram words from the end of a binary trie model', () => {
    expect(trieLanguageModelWords(trieModel(["'bout", 'budget', 'zürich', "zyuganov's"]))).toEqual([
      "'bout",
      'budget',
      'zürich',
      "zyuganov's",
    ]);
  });

  it('refuses what is not a trie model, or a model whose word list is short', () => {
    expect(() => trieLanguageModelWords(Buffer.from('#\\data\\\nngram 1=3\n'))).toThrow(/not a binary trie/);
    const model = trieModel(['a', 'b']);
    model.writeUInt32LE(5_000_000, 'Trie Language Model'.length + 1);
    expect(() => trieLanguageModelWords(model)).toThrow(/could not read the 5000000 words/);
  });

  it('keeps every pronunciation of the words asked for, and nothing else', () => {
    const dictionary = [
      'budget B AH JH AH T',
      'budgeted B AH JH AH T IH D',
      'read R EH D',
      'read(2) R IY D',
      'reader R IY D ER',
      '',
    ].join('\n');
    expect(dictionaryOf(dictionary, new Set(['budget', 'read', 'unknown']))).toBe(
      'budget B AH JH AH T\nread R EH D\nread(2) R IY D\n',
    );
    expect(dictionaryOf(dictionary, new Set(['nothing']))).toBe('');
  });

  it.runIf(existsSync(LANGUAGE_MODEL) && existsSync(FULL_DICTIONARY))(
    "cuts Debian's English model to the words its language model knows",
    () => {
      const words = trieLanguageModelWords(readFileSync(LANGUAGE_MODEL));
      expect(words.length).toBe(readFileSync(LANGUAGE_MODEL).readUInt32LE(20));
      expect(words).toContain('budget');
      const pruned = dictionaryOf(readFileSync(FULL_DICTIONARY, 'utf8'), new Set(words));
      const entries = pruned.split('\n').filter(Boolean);
      expect(entries.length).toBeGreaterThan(words.length * 0.9);
      expect(entries.length).toBeLessThan(readFileSync(FULL_DICTIONARY, 'utf8').split('\n').length * 0.7);
    },
    // Debian's whole model and dictionary: about 2 s alone, several times that beside e2e files.
    60_000,
  );
});
