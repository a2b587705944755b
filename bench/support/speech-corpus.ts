import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { RecordingCatalog } from '../../simulator/recordings.js';
import { VOICES } from '../../simulator/schema.js';
import { SpeechSynthesizer } from '../../simulator/voices.js';
import { soxTo16kRaw } from '../../test/support/speech.js';

const run = promisify(execFile);
export const CORPUS_SAMPLE_RATE = 16_000;

export interface CorpusUtterance {
  text: string;
  samples: Int16Array;
}

export interface SpeechSet {
  name: string;
  kind: 'real' | 'synthetic';
  description: string;
  utterances: CorpusUtterance[];
}

/** Meeting-like sentences for the synthetic set: each of the simulator's voices says all of them. */
export const FLITE_SENTENCES = [
  'Good morning everyone, let us review the project schedule for this week.',
  'The design work is finished and the testing will start on Monday.',
  'I will send the report to the team tomorrow morning.',
  'Please tell the customer about the new release date.',
  'We need two more people to help with the support tickets.',
  'Can you share the budget numbers before the meeting on Thursday?',
  'The new office will open in the spring if the contract is signed.',
  'Thank you all, that is everything on the agenda for today.',
] as const;

/** Any WAV (8 or 16 kHz, flite's or a package's) as 16 kHz mono s16, the bot's capture format. */
export async function decodeTo16k(path: string): Promise<Int16Array> {
  const { stdout } = await run('sox', soxTo16kRaw(path, '-'), {
    encoding: 'buffer',
    maxBuffer: 512 * 1024 * 1024,
  });
  const samples = new Int16Array(stdout.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = stdout.readInt16LE(i * 2);
  return samples;
}

/** Every installed real-speech set with transcripts (simulator/recordings.ts). */
export async function realSpeechSets(catalog = new RecordingCatalog()): Promise<SpeechSet[]> {
  const sets: SpeechSet[] = [];
  for (const set of catalog.sets()) {
    const utterances: CorpusUtterance[] = [];
    for (const recording of set.recordings) {
      utterances.push({ text: recording.text, samples: await decodeTo16k(recording.path) });
    }
    sets.push({
      name: set.name,
      kind: 'real',
      description: `${set.description}; ${set.packages.join(', ')}`,
      utterances,
    });
  }
  return sets;
}

/** The simulator's flite voices, each speaking FLITE_SENTENCES. */
export async function fliteSet(speech = new SpeechSynthesizer()): Promise<SpeechSet> {
  const utterances: CorpusUtterance[] = [];
  for (const voice of VOICES) {
    for (const text of FLITE_SENTENCES) {
      const clip = await speech.synthesize(voice, text);
      utterances.push({ text, samples: await decodeTo16k(clip.path) });
    }
  }
  return {
    name: 'flite',
    kind: 'synthetic',
    description: `flite voices ${VOICES.join(', ')} × ${FLITE_SENTENCES.length} sentences (simulator/voices.ts)`,
    utterances,
  };
}
