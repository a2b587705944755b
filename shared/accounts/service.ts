import { BadRequestError, NotFoundError } from '../infra/errors.js';
import type { Db, Knex } from '../infra/knex.js';
import { generateApiKey } from './api-keys.js';
import { type ApiKeyRecord, insertApiKey, listApiKeys, revokeApiKey, revokeKeysNamed } from './keys-store.js';
import { rotateMediaLinkSecret } from './media-link-secrets.js';
import {
  findUserByEmail,
  findUserById,
  insertUser,
  listUsers,
  type NewUser,
  type UserChanges,
  type UserRecord,
  updateUser,
} from './users-store.js';

const USER_NOT_FOUND = 'User not found';

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

export function listAllUsers(db: Knex, page: { skip: number; limit: number }): Promise<UserRecord[]> {
  return listUsers(db, page);
}

export async function userByEmail(db: Knex, email: string): Promise<UserRecord> {
  const user = await findUserByEmail(db, email);
  if (!user) throw new NotFoundError(USER_NOT_FOUND);
  return user;
}

/** A user with every API key they were issued (revoked ones too, marked). */
export async function userWithKeys(
  db: Knex,
  id: number,
): Promise<{ user: UserRecord; keys: ApiKeyRecord[] }> {
  const user = await findUserById(db, id);
  if (!user) throw new NotFoundError(USER_NOT_FOUND);
  return { user, keys: await listApiKeys(db, id) };
}

/** Changes a user's profile and limits; the email names the account and can't change. */
export async function updateUserProfile(
  db: Knex,
  id: number,
  changes: UserChanges & { email?: string | undefined },
): Promise<UserRecord> {
  const user = await findUserById(db, id);
  if (!user) throw new NotFoundError(USER_NOT_FOUND);
  if (changes.email !== undefined && changes.email.toLowerCase() !== user.email.toLowerCase()) {
    throw new BadRequestError('email: cannot be changed');
  }
  const updated = await updateUser(db, id, changes);
  if (!updated) throw new NotFoundError(USER_NOT_FOUND);
  return updated;
}

/** A new API key for an existing user. */
export async function issueUserApiKey(db: Knex, userId: number, name: string | null): Promise<IssuedApiKey> {
  if (!(await findUserById(db, userId))) throw new NotFoundError(USER_NOT_FOUND);
  return issueApiKey(db, userId, name);
}

/**
 * Revokes a key and rotates its user's media links: a key revoked because it leaked may have fetched
 * media_urls, and they go with it (the user's other keys fetch new ones).
 */
export async function revokeUserApiKey(db: Knex, keyId: number): Promise<ApiKeyRecord> {
  return db.transaction(async (trx) => {
    const key = await revokeApiKey(trx, keyId);
    if (!key) throw new NotFoundError('Token not found');
    await rotateMediaLinkSecret(trx, key.userId);
    return key;
  });
}

/**
 * A new key named `name` that replaces the user's earlier keys of that name (they are revoked in
 * the same transaction): running `npm run up` again leaves one live "quickstart" key, not one more.
 */
export async function replaceNamedApiKey(
  db: Knex,
  userId: number,
  name: string,
): Promise<IssuedApiKey & { revoked: number }> {
  return db.transaction(async (trx) => {
    const revoked = await revokeKeysNamed(trx, userId, name);
    return { ...(await issueApiKey(trx, userId, name)), revoked };
  });
}
