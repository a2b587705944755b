import { z } from 'zod';

/** A time in a meeting's script, or a delay it sets: seconds, up to an hour. */
export const seconds = z.number().finite().min(0).max(3600);
