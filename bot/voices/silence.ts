/** A sample louder than this (about −50 dBFS) is sound: low enough to keep a soft onset ("th", "f"). */
const SOUND = 100;

/**
 * Drops the silence a synthesiser puts before the voice, keeping `keepMs` of it: flite starts every
 * clip with about 0.2 s of silence, which would otherwise delay the first word by as much (and
 * stretch the pause between pieces; each piece's trailing silence is pause enough).
 */
export function trimLeadingSilence(samples: Int16Array, sampleRate: number, keepMs: number): Int16Array {
  let first = 0;
  while (first < samples.length && Math.abs(samples[first] ?? 0) <= SOUND) first += 1;
  if (first >= samples.length) return samples;
  const start = Math.max(0, first - Math.round((keepMs / 1000) * sampleRate));
  return start === 0 ? samples : samples.subarray(start);
}
