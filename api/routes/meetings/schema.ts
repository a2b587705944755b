import { z } from 'zod';
import { type PageSizes, pageQueryShape } from '../query-params.js';

export const meetingIdParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a positive integer')
    .transform((value) => Number(value)),
});

export function listMeetingsQuery(sizes: PageSizes) {
  return z.object(pageQueryShape(sizes));
}

// A null member removes that member (JSON merge-patch); absent members are left as they are.
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const updateMeetingDataRequest = z
  .object(
    {
      data: z
        .object(
          {
            name: nullable(
              z.string({ error: 'must be a string or null' }).max(1000, 'must be at most 1000 characters'),
            ),
            notes: nullable(
              z
                .string({ error: 'must be a string or null' })
                .max(100_000, 'must be at most 100000 characters'),
            ),
            participants: nullable(
              z
                .array(z.string({ error: 'must be a string' }).max(1000), {
                  error: 'must be an array of strings or null',
                })
                .max(1000, 'must have at most 1000 entries'),
            ),
            languages: nullable(
              z
                .array(z.string({ error: 'must be a string' }).max(35), {
                  error: 'must be an array of strings or null',
                })
                .max(100, 'must have at most 100 entries'),
            ),
          },
          { error: 'is required and must be an object' },
        )
        .catchall(z.unknown()),
    },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'UpdateMeetingDataRequest' });
