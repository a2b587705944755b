import type { EmbeddedProfile } from '../../../shared/contract/bot-config.js';

/**
 * pocketsphinx_continuous search flags per named profile. The figures behind them (real-speech and
 * synthetic WER, CPU per second of speech) are in docs/benchmarks.md "Accuracy on real speech";
 * `npx tsx bench/wer.ts` measures them again.
 */
export const RECOGNIZER_PROFILES: Readonly<Record<EmbeddedProfile, readonly string[]>> = {
  /** The recognizer's own search settings: the widest search, the most CPU. */
  accurate: [],
  /** Narrower search (fewer active HMMs and words per frame, longer phone look-ahead). */
  balanced: ['-pl_window', '10', '-maxhmmpf', '3000', '-maxwpf', '5'],
  /** balanced without the second (flat-lexicon) search pass. */
  fast: ['-pl_window', '10', '-maxhmmpf', '3000', '-maxwpf', '5', '-fwdflat', 'no'],
};

/** The search flags the engine runs with: the operator's own arguments when given, else the profile's. */
export function recognizerArgs(profile: EmbeddedProfile, extraArgs: readonly string[]): string[] {
  return extraArgs.length > 0 ? [...extraArgs] : [...RECOGNIZER_PROFILES[profile]];
}
