import type { Db } from '../infra/knex.js';
import type { UserRecord } from './users-store.js';

export interface ApiKeyRecord {
  id: number;
  userId: number;
  name: string | null;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

interface ApiKeyRow {
  id: number;
  user_id: number;
  name: string | null;
  prefix: string;
  key_hash: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

export async function insertApiKey(
  db: Db,
  key: { userId: number; name: string | null; prefix: string; keyHash: string },
): Promise<ApiKeyRecord> {
  const [row] = await db<ApiKeyRow>('api_keys')
    .insert({ user_id: key.userId, name: key.name, prefix: key.prefix, key_hash: key.keyHash })
    .returning('*');
  return toRecord(row!);
}

export interface AuthenticatedKey {
  keyId: number;
  /** When the key was last recorded as used (recorded at most once a minute). */
  lastUsedAt: Date | null;
  user: Pick<UserRecord, 'id' | 'email' | 'maxConcurrentBots'>;
}

/** The live (not revoked) key with this hash, with the few user fields a request needs. */
export async function findActiveKeyByHash(db: Db, keyHash: string): Promise<AuthenticatedKey | undefined> {
  const row = await db('api_keys as k')
    .join('users as u', 'u.id', 'k.user_id')
    .where('k.key_hash', keyHash)
    .whereNull('k.revoked_at')
    .first<
      | {
          key_id: number;
          last_used_at: Date | null;
          user_id: number;
          email: string;
          max_concurrent_bots: number;
        }
      | undefined
    >('k.id as key_id', 'k.last_used_at', 'u.id as user_id', 'u.email', 'u.max_concurrent_bots');
  if (!row) return undefined;
  return {
    keyId: row.key_id,
    lastUsedAt: row.last_used_at,
    user: { id: row.user_id, email: row.email, maxConcurrentBots: row.max_concurrent_bots },
  };
}

/** How often a key's use is recorded: authentication stays a read on the hot path. */
export const KEY_USE_RECORD_INTERVAL_MS = 60_000;

/** Records use at most once a minute per key (callers skip it when lastUsedAt is recent). */
export async function touchApiKey(db: Db, keyId: number): Promise<void> {
  await db('api_keys')
    .where({ id: keyId })
    .andWhere((query) =>
      query.whereNull('last_used_at').orWhere('last_used_at', '<', db.raw("now() - interval '1 minute'")),
    )
    .update({ last_used_at: db.fn.now() });
}

export async function listApiKeys(db: Db, userId: number): Promise<ApiKeyRecord[]> {
  const rows = await db<ApiKeyRow>('api_keys').where({ user_id: userId }).orderBy('id');
  return rows.map(toRecord);
}

export async function revokeApiKey(db: Db, keyId: number): Promise<ApiKeyRecord | undefined> {
  const [row] = await db<ApiKeyRow>('api_keys')
    .where({ id: keyId })
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') as unknown as Date })
    .returning('*');
  return row && toRecord(row);
}

/** Revokes the user's live keys with this name; returns how many. */
export async function revokeKeysNamed(db: Db, userId: number, name: string): Promise<number> {
  return db('api_keys')
    .where({ user_id: userId, name })
    .whereNull('revoked_at')
    .update({ revoked_at: db.fn.now() });
}
