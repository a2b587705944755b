import { z } from 'zod';
import { isoTimestamp } from '../../../shared/infra/timestamps.js';

const email = z.email({ error: 'must be an email address' }).max(320);

export const userSchema = z
  .object({
    id: z.number().int(),
    email: z.string(),
    name: z.string().nullable(),
    image_url: z.string().nullable(),
    max_concurrent_bots: z.number().int(),
    data: z.record(z.string(), z.unknown()),
    created_at: isoTimestamp,
  })
  .meta({ id: 'User' });

export const apiKeySummarySchema = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    name: z.string().nullable(),
    prefix: z.string().describe('The first characters of the key, to tell keys apart.'),
    created_at: isoTimestamp,
    last_used_at: isoTimestamp.nullable(),
    revoked_at: isoTimestamp.nullable(),
  })
  .meta({ id: 'ApiKeySummary' });

export const userDetailSchema = userSchema
  .extend({ api_tokens: z.array(apiKeySummarySchema) })
  .meta({ id: 'UserDetail' });

export const issuedTokenSchema = apiKeySummarySchema
  .extend({ token: z.string().describe('The key itself. Shown only in this response.') })
  .meta({ id: 'IssuedToken' });

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

export const listUsersQuery = z.object({
  skip: z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .default(0),
  limit: z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000'))
    .default(100),
});

export const numericIdParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,9}$/, 'must be a positive integer')
    .transform(Number),
});
