import { z } from 'zod';

/** Every timestamp the API answers with: ISO 8601, UTC (`Z`), milliseconds. */
export const isoTimestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

/** A nullable time as the API answers it. */
export function isoOrNull(value: Date | null): string | null {
  return value ? value.toISOString() : null;
}
