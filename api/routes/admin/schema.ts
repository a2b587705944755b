import { z } from 'zod';
import { botName } from '../../../shared/contract/commands.js';
import { PLATFORMS } from '../../../shared/contract/platforms.js';
import { storageState } from '../../../shared/contract/storage-state.js';
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

const displayName = botName.describe('The name the account joins meetings under (the account’s own name).');

/** POST /admin/bot-accounts. */
export const createBotAccountRequest = z
  .object(
    {
      platform: z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}` }),
      display_name: displayName,
      storage_state: storageState.describe(
        'The signed-in browser session, as Playwright saves it (`context.storageState()`): cookies and origins with their localStorage. Stored sealed; never returned.',
      ),
    },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'CreateBotAccountRequest' });

/** PATCH /admin/bot-accounts/{id}. */
export const updateBotAccountRequest = z
  .object(
    {
      display_name: displayName.optional(),
      storage_state: storageState
        .optional()
        .describe('A new session replacing the stored one; an expired account becomes active again.'),
      enabled: z
        .boolean({ error: 'must be a boolean' })
        .optional()
        .describe('false: out of the pool (disabled); true: back in it (active).'),
    },
    { error: 'must be a JSON object' },
  )
  .refine(
    (body) =>
      body.display_name !== undefined || body.storage_state !== undefined || body.enabled !== undefined,
    { error: 'must contain at least one of display_name, storage_state, enabled' },
  )
  .meta({ id: 'UpdateBotAccountRequest' });

export function listBotAccountsQuery(sizes: PageSizes) {
  const { limit, offset } = pageQueryShape(sizes);
  return z.object({ skip: offset, limit });
}
