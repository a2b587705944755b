import { generateApiKey } from './api-keys.js';
import { type ApiKeyRecord, insertApiKey } from './keys-store.js';
import type { Db, Knex } from '../infra/knex.js';
import { findUserByEmail, insertUser, type NewUser, type UserRecord } from './users-store.js';

/**
 * Account operations shared by the admin API and the `keys` CLI, so both issue keys the same way.
 */
export async function findOrCreateUser(
  db: Knex,
  input: Omit<NewUser, 'maxConcurrentBots'> & { maxConcurrentBots?: number | undefined },
  defaultMaxConcurrentBots: number,
): Promise<{ user: UserRecord; created: boolean }> {
  return db.transaction(async (trx) => {
    // Serialises concurrent creates of one email without relying on catching a unique violation.
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(lower(?)))', [input.email]);
    const existing = await findUserByEmail(trx, input.email);
    if (existing) return { user: existing, created: false };
    const user = await insertUser(trx, {
      ...input,
      maxConcurrentBots: input.maxConcurrentBots ?? defaultMaxConcurrentBots,
    });
    return { user, created: true };
  });
}

export interface IssuedApiKey {
  key: ApiKeyRecord;
  /** The secret; it exists only in this return value. */
  token: string;
}

export async function issueApiKey(db: Db, userId: number, name: string | null): Promise<IssuedApiKey> {
  const generated = generateApiKey();
  const key = await insertApiKey(db, { userId, name, prefix: generated.prefix, keyHash: generated.hash });
  return { key, token: generated.token };
}
