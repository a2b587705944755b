import { z } from 'zod';
import { PLATFORMS } from '../contract/platforms.js';
import { isoTimestamp } from '../infra/timestamps.js';
import { BOT_ACCOUNT_STATUSES } from './bot-accounts-store.js';

/** Users and API keys as the admin API shows them (responses; also the OpenAPI document's schemas). */

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

/** A bot account as the admin API shows it: never its browser session. */
export const botAccountSchema = z
  .object({
    id: z.number().int(),
    platform: z.enum(PLATFORMS),
    display_name: z.string().describe('The name the account joins meetings under.'),
    status: z
      .enum(BOT_ACCOUNT_STATUSES)
      .describe('active: in the pool; expired: its session no longer signs in; disabled: by the operator'),
    status_reason: z.string().nullable(),
    status_changed_at: isoTimestamp,
    bots_in_use: z.number().int().describe('Bots using the account now (at most BOT_ACCOUNT_MAX_BOTS).'),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
  })
  .meta({ id: 'BotAccount' });
