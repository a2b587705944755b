/**
 * Writes the dictionary of only the language model's words (see lm-dictionary.ts). Run once when the
 * bot image is built, as root:  node dist/bot/engines/embedded/write-lm-dictionary.js
 */
import { readFileSync, writeFileSync } from 'node:fs';
import {
  dictionaryOf,
  FULL_DICTIONARY,
  LANGUAGE_MODEL,
  LM_WORDS_DICTIONARY,
  trieLanguageModelWords,
} from './lm-dictionary.js';

const words = new Set(trieLanguageModelWords(readFileSync(LANGUAGE_MODEL)));
const full = readFileSync(FULL_DICTIONARY, 'utf8');
const pruned = dictionaryOf(full, words);
writeFileSync(LM_WORDS_DICTIONARY, pruned);
const lines = (text: string) => text.split('\n').filter(Boolean).length;
console.log(
  `${LM_WORDS_DICTIONARY}: ${lines(pruned)} of ${lines(full)} pronunciations (the language model's ${words.size} words)`,
);
