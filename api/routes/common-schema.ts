import { z } from 'zod';

/** Every timestamp the API answers with: ISO 8601, UTC (`Z`), milliseconds. */
export const isoTimestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');
