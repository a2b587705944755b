/**
 * Accuracy on real speech (issue 15): the embedded engine (its VAD gate, pocketsphinx with the bot
 * image's dictionary) over every installed real-speech set with transcripts and over the simulator's
 * flite voices, once per recognizer profile plus the recognizer's own defaults. Prints WER per set,
 * the real-speech total and recognizer CPU (core-seconds per second of speech, model load apart).
 *
 *   npx tsx bench/wer.ts [--profile balanced,fast] [--sets librivox,cards,asterisk,flite] [--args "-topn 2 ..."]
 *
 * Needs sox, flite, pocketsphinx and pocketsphinx-en-us, and for the real speech
 * pocketsphinx-testdata, asterisk-core-sounds-en and asterisk-core-sounds-en-wav (scripts/test.sh
 * installs them).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  dictionaryOf,
  FULL_DICTIONARY,
  LANGUAGE_MODEL,
  LM_WORDS_DICTIONARY,
  trieLanguageModelWords,
} from '../bot/engines/embedded/lm-dictionary.js';
import { RECOGNIZER_PROFILES } from '../bot/engines/embedded/recognizer-profiles.js';
import {
  DEFAULT_EMBEDDED_PROFILE,
  EMBEDDED_PROFILES,
  type EmbeddedProfile,
} from '../shared/contract/bot-config.js';
import { type WordErrorRate, wordErrorRate } from '../test/support/wer.js';
import { type RecognizerSetting, recognizeSet } from './support/recognizer-run.js';
import { fliteSet, realSpeechSets, type SpeechSet } from './support/speech-corpus.js';

const { values } = parseArgs({
  options: {
    profile: { type: 'string' },
    sets: { type: 'string' },
    args: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
});

/**
 * The recognizer with none of our flags. extraArgs must be non-empty to replace a profile's, so it
 * names one flag at the recognizer's own default value.
 */
const RECOGNIZER_DEFAULTS: RecognizerSetting = {
  label: 'recognizer defaults',
  profile: DEFAULT_EMBEDDED_PROFILE,
  extraArgs: ['-fwdflat', 'yes'],
};

function settingsToRun(): RecognizerSetting[] {
  const wanted = values.profile
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean) ?? [...EMBEDDED_PROFILES, 'defaults'];
  const settings: RecognizerSetting[] = [];
  for (const name of wanted) {
    if (name === 'defaults') settings.push(RECOGNIZER_DEFAULTS);
    else if ((EMBEDDED_PROFILES as readonly string[]).includes(name)) {
      settings.push({ label: name, profile: name as EmbeddedProfile, extraArgs: [] });
    } else throw new Error(`--profile: unknown '${name}' (known: ${EMBEDDED_PROFILES.join(', ')}, defaults)`);
  }
  // A profile without flags runs the recognizer's defaults: one row for both.
  const isDefaults = (setting: RecognizerSetting) =>
    setting.extraArgs.length === 0 && RECOGNIZER_PROFILES[setting.profile].length === 0;
  const profileIsDefaults = settings.find(isDefaults);
  if (profileIsDefaults) {
    profileIsDefaults.label = `${profileIsDefaults.label} (recognizer defaults)`;
    const reference = settings.indexOf(RECOGNIZER_DEFAULTS);
    if (reference >= 0) settings.splice(reference, 1);
  }
  if (values.args)
    settings.push({
      label: `custom: ${values.args}`,
      profile: 'balanced',
      extraArgs: values.args.split(/\s+/).filter(Boolean),
    });
  return settings;
}

/** The bot image's dictionary (lm-dictionary.ts), made from the same model when the host lacks it. */
async function imageDictionary(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  if (existsSync(LM_WORDS_DICTIONARY)) return { path: LM_WORDS_DICTIONARY, cleanup: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'meetbot-wer-'));
  const path = join(dir, 'meetbot-lm-words.dict');
  const words = new Set(trieLanguageModelWords(readFileSync(LANGUAGE_MODEL)));
  writeFileSync(path, dictionaryOf(readFileSync(FULL_DICTIONARY, 'utf8'), words));
  return { path, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

async function loadSets(): Promise<SpeechSet[]> {
  const wanted = values.sets?.split(',').map((name) => name.trim());
  const sets = [...(await realSpeechSets()), await fliteSet()];
  if (!wanted) return sets;
  const unknown = wanted.filter((name) => !sets.some((set) => set.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `--sets: not available here: ${unknown.join(', ')} (found: ${sets.map((s) => s.name).join(', ')})`,
    );
  }
  return sets.filter((set) => wanted.includes(set.name));
}

function sum(rates: WordErrorRate[]): { errors: number; words: number } {
  let errors = 0;
  let words = 0;
  for (const rate of rates) {
    errors += rate.substitutions + rate.deletions + rate.insertions;
    words += rate.referenceWords;
  }
  return { errors, words };
}

const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

const settings = settingsToRun();
const sets = await loadSets();
const dictionary = await imageDictionary();
console.log(`dictionary: ${dictionary.path}`);
for (const set of sets) {
  const seconds = set.utterances.reduce((total, u) => total + u.samples.length, 0) / 16_000;
  const words = set.utterances.reduce((total, u) => total + u.text.split(/\s+/).length, 0);
  console.log(
    `set ${set.name} (${set.kind}): ${set.utterances.length} clips, ${seconds.toFixed(1)} s, ${words} words: ${set.description}`,
  );
}
for (const setting of settings) {
  const flags = setting.extraArgs.length > 0 ? setting.extraArgs : RECOGNIZER_PROFILES[setting.profile];
  console.log(`setting ${setting.label}: ${flags.join(' ') || '(none)'}`);
}

const realSets = sets.filter((set) => set.kind === 'real');
const header = [
  'setting',
  ...realSets.map((set) => `${set.name} WER`),
  ...(realSets.length > 1 ? ['real total WER'] : []),
  ...sets.filter((set) => set.kind === 'synthetic').map((set) => `${set.name} WER`),
  'CPU real (core·s/s)',
  'CPU flite (core·s/s)',
  'model load (CPU s)',
];
const rows: string[][] = [];
try {
  for (const setting of settings) {
    const real: WordErrorRate[] = [];
    const cells: string[] = [setting.label];
    const synthetic: string[] = [];
    const cpu = { real: 0, realSeconds: 0, synthetic: 0, syntheticSeconds: 0 };
    const loads: number[] = [];
    for (const set of sets) {
      const result = await recognizeSet(set, setting, dictionary.path);
      const rate = wordErrorRate(set.utterances.map((u) => u.text).join(' '), result.hypothesis);
      loads.push(result.loadCpuSeconds);
      if (set.kind === 'real') {
        real.push(rate);
        cells.push(percent(rate.rate));
        cpu.real += result.cpuSeconds;
        cpu.realSeconds += result.speechSeconds;
      } else {
        synthetic.push(percent(rate.rate));
        cpu.synthetic += result.cpuSeconds;
        cpu.syntheticSeconds += result.speechSeconds;
      }
      console.log(
        `  ${setting.label} / ${set.name}: WER ${percent(rate.rate)} (${rate.substitutions} sub, ${rate.deletions} del, ${rate.insertions} ins of ${rate.referenceWords}), CPU ${result.cpuSeconds.toFixed(2)} s for ${result.speechSeconds.toFixed(1)} s of speech`,
      );
      if (values.verbose) console.log(`    "${result.hypothesis}"`);
    }
    if (realSets.length > 1) {
      const total = sum(real);
      cells.push(percent(total.errors / total.words));
    }
    cells.push(...synthetic);
    cells.push(cpu.realSeconds > 0 ? (cpu.real / cpu.realSeconds).toFixed(3) : '—');
    cells.push(cpu.syntheticSeconds > 0 ? (cpu.synthetic / cpu.syntheticSeconds).toFixed(3) : '—');
    cells.push((loads.reduce((a, b) => a + b, 0) / loads.length).toFixed(2));
    rows.push(cells);
  }
} finally {
  await dictionary.cleanup();
}

console.log('');
console.log(`| ${header.join(' | ')} |`);
console.log(`|${header.map(() => '---').join('|')}|`);
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
