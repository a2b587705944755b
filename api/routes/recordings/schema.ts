import { z } from 'zod';

export const recordingIdParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a positive integer')
    .transform((value) => Number(value)),
});
