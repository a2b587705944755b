/** The benches' and long tests' simulated meeting: three people taking turns every 5 s, without pause, with flite voices. */
/** Plain office sentences, 3–4 s each in flite's voices. */
export const MEETING_SENTENCES = [
  'good morning everyone and welcome to the weekly review',
  'the design work is finished and testing starts on monday',
  'please send the updated budget to the finance team today',
  'the new office opens next month with room for forty people',
  'our customers asked for better search and faster exports',
  'let us schedule a follow up meeting on thursday afternoon',
  'we should move the release to the second week of march',
  'i will call them this afternoon and write down their questions',
];
const SPEAKERS = [
  { name: 'Alice Archer', voice: 'slt' as const },
  { name: 'Bob Baker', voice: 'rms' as const },
  { name: 'Carol Cooper', voice: 'awb' as const },
];

export interface SpeechOptions {
  /** Seconds from one turn's start to the next (5: back to back). */
  everySeconds?: number;
  /** Only turns starting inside one of these [from, to) second ranges are spoken. */
  within?: Array<[number, number]>;
}

/**
 * Participants for a meeting `seconds` long, taking turns (back to back unless `everySeconds` says
 * otherwise): the last turn starts at least 4 s before its end.
 */
export function continuousSpeech(seconds: number, options: SpeechOptions = {}) {
  const every = options.everySeconds ?? 5;
  const spoken = (at: number) =>
    !options.within || options.within.some(([from, to]) => at >= from && at < to);
  return SPEAKERS.map((speaker, index) => ({
    ...speaker,
    utterances: Array.from({ length: Math.floor((seconds - 4) / every) }, (_, turn) => turn)
      .filter((turn) => turn % SPEAKERS.length === index)
      .map((turn) => ({ at: 1 + turn * every, text: MEETING_SENTENCES[turn % MEETING_SENTENCES.length]! }))
      .filter((utterance) => spoken(utterance.at)),
  }));
}
