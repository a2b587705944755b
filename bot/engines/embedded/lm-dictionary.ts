/**
 * The recognizer loads its whole pronunciation dictionary (134,723 entries in Debian's English
 * model) into memory, while its language model knows only 72,547 words: a word outside the model
 * is never recognized, so its pronunciations are dead weight (≈ 14 MiB of every recognizer). The
 * bot image keeps a dictionary of just the model's words (written at build time by
 * write-lm-dictionary.ts) and the engine uses it when it is there.
 */
export const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
export const LANGUAGE_MODEL = `${MODEL_DIR}/en-us.lm.bin`;
export const FULL_DICTIONARY = `${MODEL_DIR}/cmudict-en-us.dict`;
export const LM_WORDS_DICTIONARY = `${MODEL_DIR}/meetbot-lm-words.dict`;

const TRIE_MAGIC = 'Trie Language Model';

/**
 * The vocabulary of a binary trie language model (sphinxbase's format): a magic string, the model's
 * order as one byte, then the n-gram counts as little-endian 32-bit integers (unigrams first), and at
 * the end of the file the unigrams' words, each ending in a NUL byte.
 */
export function trieLanguageModelWords(model: Buffer): string[] {
  if (model.subarray(0, TRIE_MAGIC.length).toString('latin1') !== TRIE_MAGIC) {
    throw new Error('not a binary trie language model');
  }
  const order = model[TRIE_MAGIC.length] ?? 0;
  if (order < 1 || order > 10) throw new Error(`implausible language model order ${order}`);
  const unigrams = model.readUInt32LE(TRIE_MAGIC.length + 1);
  let end = model.length;
  while (end > 0 && model[end - 1] === 0) end -= 1;
  const words = model.subarray(0, end).toString('utf8').split('\0').slice(-unigrams);
  if (words.length !== unigrams || words.some((word) => word.length === 0 || word.length > 100)) {
    throw new Error(`could not read the ${unigrams} words at the end of the language model`);
  }
  return words;
}

/** The dictionary's lines for the given words, alternative pronunciations (`word(2)`) included. */
export function dictionaryOf(dictionary: string, words: ReadonlySet<string>): string {
  const kept: string[] = [];
  for (const line of dictionary.split('\n')) {
    const space = line.indexOf(' ');
    const entry = space < 0 ? line : line.slice(0, space);
    const word = entry.replace(/\(\d+\)$/, '');
    if (word && words.has(word)) kept.push(line);
  }
  return kept.length > 0 ? `${kept.join('\n')}\n` : '';
}
