import type { z } from 'zod';
import { isoOrNull } from '../infra/timestamps.js';
import type { BotAccountRecord } from './bot-accounts-store.js';
import type { ApiKeyRecord } from './keys-store.js';
import type { UserRecord } from './users-store.js';
import type { apiKeySummarySchema, botAccountSchema, userSchema } from './wire.js';

export function userJson(user: UserRecord): z.infer<typeof userSchema> {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    image_url: user.imageUrl,
    max_concurrent_bots: user.maxConcurrentBots,
    data: user.data,
    created_at: user.createdAt.toISOString(),
  };
}

export function apiKeyJson(key: ApiKeyRecord): z.infer<typeof apiKeySummarySchema> {
  return {
    id: key.id,
    user_id: key.userId,
    name: key.name,
    prefix: key.prefix,
    created_at: key.createdAt.toISOString(),
    last_used_at: isoOrNull(key.lastUsedAt),
    revoked_at: isoOrNull(key.revokedAt),
  };
}

/** Everything about an account but its session, which no response carries. */
export function botAccountJson(account: BotAccountRecord): z.infer<typeof botAccountSchema> {
  return {
    id: account.id,
    platform: account.platform,
    display_name: account.displayName,
    status: account.status,
    status_reason: account.statusReason,
    status_changed_at: account.statusChangedAt.toISOString(),
    bots_in_use: account.botsInUse,
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
  };
}
