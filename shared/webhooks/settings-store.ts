import type { Db } from '../infra/knex.js';
import { generateWebhookSecret } from './signature.js';

export interface UserWebhookSettings {
  url: string | null;
  secret: string;
  partialSegments: boolean;
}

export interface UserWebhookChange {
  url?: string | null | undefined;
  /** A new signing secret; when the user has none yet one is generated. */
  secret?: string | undefined;
  partialSegments?: boolean | undefined;
}

interface WebhookColumns {
  id: number;
  webhook_url: string | null;
  webhook_secret: string | null;
  webhook_partial_segments: boolean;
}

const COLUMNS = ['webhook_url', 'webhook_secret', 'webhook_partial_segments'] as const;

function toSettings(row: Omit<WebhookColumns, 'id'>): UserWebhookSettings {
  return { url: row.webhook_url, secret: row.webhook_secret!, partialSegments: row.webhook_partial_segments };
}

/**
 * The user's webhook settings, creating their signing secret on first use (inside the caller's
 * transaction when there is one); a plain read once it exists. Undefined when the user doesn't exist.
 */
export async function userWebhookSettings(db: Db, userId: number): Promise<UserWebhookSettings | undefined> {
  const row = await db<WebhookColumns>('users')
    .where({ id: userId })
    .first(...COLUMNS);
  if (!row) return undefined;
  return row.webhook_secret ? toSettings(row) : updateUserWebhook(db, userId, {});
}

export async function updateUserWebhook(
  db: Db,
  userId: number,
  change: UserWebhookChange,
): Promise<UserWebhookSettings | undefined> {
  const update: Record<string, unknown> = {
    webhook_secret: change.secret ?? db.raw('coalesce(webhook_secret, ?)', [generateWebhookSecret()]),
  };
  if (change.url !== undefined) update.webhook_url = change.url;
  if (change.partialSegments !== undefined) update.webhook_partial_segments = change.partialSegments;
  const [row] = await db<WebhookColumns>('users').where({ id: userId }).update(update).returning(COLUMNS);
  return row && toSettings(row);
}

/** Replaces the user's signing secret with a new random one. */
export async function rotateUserWebhookSecret(
  db: Db,
  userId: number,
): Promise<UserWebhookSettings | undefined> {
  return updateUserWebhook(db, userId, { secret: generateWebhookSecret() });
}
