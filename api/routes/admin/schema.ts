import { z } from 'zod';
import { type PageSizes, pageQueryShape } from '../query-params.js';

const email = z.email({ error: 'must be an email address' }).max(320);

const maxBots = z
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(0, 'must be at least 0')
  .max(10_000, 'must be at most 10000');

export const createUserRequest = z
  .object(
    {
      email,
      name: z.string({ error: 'must be a string' }).max(200).nullable().optional(),
      image_url: z.url({ error: 'must be a URL' }).max(2048).nullable().optional(),
      max_concurrent_bots: maxBots.optional(),
      data: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
    },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'CreateUserRequest' });

export const updateUserRequest = z
  .object(
    {
      email: z.string().optional(),
      name: z.string({ error: 'must be a string' }).max(200).nullable().optional(),
      image_url: z.url({ error: 'must be a URL' }).max(2048).nullable().optional(),
      max_concurrent_bots: maxBots.optional(),
      data: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
    },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'UpdateUserRequest' });

export const createTokenRequest = z
  .object(
    { name: z.string({ error: 'must be a string' }).max(200).optional() },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'CreateTokenRequest' });

export function listUsersQuery(sizes: PageSizes) {
  const { limit, offset } = pageQueryShape(sizes);
  return z.object({ skip: offset, limit });
}

/** `?name=` of POST /admin/users/{id}/tokens, for clients that send no body. */
export const createTokenQuery = z.object({
  name: z.string({ error: 'must be a string' }).max(200).optional(),
});

export const emailParams = z.object({ email: z.string().max(320, 'is too long') });

export const numericIdParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,9}$/, 'must be a positive integer')
    .transform(Number),
});
