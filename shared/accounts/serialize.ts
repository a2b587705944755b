import type { z } from 'zod';
import { isoOrNull } from '../infra/timestamps.js';
import type { ApiKeyRecord } from './keys-store.js';
import type { UserRecord } from './users-store.js';
import type { apiKeySummarySchema, userSchema } from './wire.js';

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
