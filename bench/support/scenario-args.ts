import { type Load, REALISTIC_LOAD } from '../../simulator/schema.js';

export const BENCH_PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;
export type BenchPlatform = (typeof BENCH_PLATFORMS)[number];

/** A bench's `--platform`, refused with the list when it names none of the platforms. */
export function platformArg(value: string): BenchPlatform {
  if (!BENCH_PLATFORMS.includes(value as BenchPlatform)) {
    throw new Error(`--platform is one of ${BENCH_PLATFORMS.join(', ')} (got ${value})`);
  }
  return value as BenchPlatform;
}

/**
 * A bench's `--load`: `realistic` is issue 31's scenario (simulator/schema.ts REALISTIC_LOAD: every
 * camera on, a screen share half the time, the real client's page weight) with three silent
 * participants beside the speakers, six in all; `none` is the speakers' audio only.
 */
export function loadArg(value: string): { load: Load | undefined; silent: { name: string }[] } {
  if (value === 'none') return { load: undefined, silent: [] };
  if (value === 'realistic') {
    return {
      load: REALISTIC_LOAD,
      silent: ['Dana Drake', 'Evan Ellis', 'Fay Foster'].map((name) => ({ name })),
    };
  }
  throw new Error(`--load is none or realistic (got ${value})`);
}
