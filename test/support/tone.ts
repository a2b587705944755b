/** Measures of captured 16-bit PCM that the audio tests judge chunks by. */

/**
 * The share of one frequency's power in the samples (Goertzel), against their energy: near 1 for a
 * pure tone at that frequency, near 0 for another tone or noise; 0 for silence.
 */
export function toneShare(samples: Int16Array, frequency: number, sampleRate = 16_000): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * frequency) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (const sample of samples) {
    const x = sample / 32768;
    energy += x * x;
    const s0 = x + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  if (energy === 0) return 0;
  return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / (energy * (samples.length / 2));
}

/** Root mean square of the samples, in sample units (0 to 32768). */
export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}
