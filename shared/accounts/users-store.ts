import type { Db } from '../infra/knex.js';
import { mergedData } from '../infra/merge-patch.js';

export interface UserRecord {
  id: number;
  email: string;
  name: string | null;
  imageUrl: string | null;
  maxConcurrentBots: number;
  data: Record<string, unknown>;
  createdAt: Date;
}

interface UserRow {
  id: number;
  email: string;
  name: string | null;
  image_url: string | null;
  max_concurrent_bots: number;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface NewUser {
  email: string;
  name?: string | null | undefined;
  imageUrl?: string | null | undefined;
  maxConcurrentBots: number;
  data?: Record<string, unknown> | undefined;
}

export interface UserChanges {
  name?: string | null | undefined;
  imageUrl?: string | null | undefined;
  maxConcurrentBots?: number | undefined;
  /** Merged into the existing data object; a null member removes that key. */
  data?: Record<string, unknown> | undefined;
}

function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    imageUrl: row.image_url,
    maxConcurrentBots: row.max_concurrent_bots,
    data: row.data,
    createdAt: row.created_at,
  };
}

export async function insertUser(db: Db, user: NewUser): Promise<UserRecord> {
  const [row] = await db<UserRow>('users')
    .insert({
      email: user.email,
      name: user.name ?? null,
      image_url: user.imageUrl ?? null,
      max_concurrent_bots: user.maxConcurrentBots,
      data: JSON.stringify(user.data ?? {}) as unknown as Record<string, unknown>,
    })
    .returning('*');
  return toRecord(row!);
}

export async function findUserById(db: Db, id: number): Promise<UserRecord | undefined> {
  const row = await db<UserRow>('users').where({ id }).first();
  return row && toRecord(row);
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRecord | undefined> {
  const row = await db<UserRow>('users').whereRaw('lower(email) = lower(?)', [email]).first();
  return row && toRecord(row);
}

export async function listUsers(db: Db, page: { skip: number; limit: number }): Promise<UserRecord[]> {
  const rows = await db<UserRow>('users').orderBy('id').offset(page.skip).limit(page.limit);
  return rows.map(toRecord);
}

export async function updateUser(db: Db, id: number, changes: UserChanges): Promise<UserRecord | undefined> {
  const update: Record<string, unknown> = {};
  if (changes.name !== undefined) update.name = changes.name;
  if (changes.imageUrl !== undefined) update.image_url = changes.imageUrl;
  if (changes.maxConcurrentBots !== undefined) update.max_concurrent_bots = changes.maxConcurrentBots;
  if (changes.data !== undefined) {
    update.data = mergedData(db, changes.data);
  }
  if (Object.keys(update).length === 0) return findUserById(db, id);
  const [row] = await db<UserRow>('users').where({ id }).update(update).returning('*');
  return row && toRecord(row);
}

/**
 * Serialises everything that counts a user's bots (the concurrent-bot limit): the caller must be
 * inside a transaction, and the lock is held until it ends.
 */
export async function lockUserForUpdate(
  db: Db,
  id: number,
  { deleting = false }: { deleting?: boolean } = {},
): Promise<UserRecord | undefined> {
  // NO KEY UPDATE: creates queue behind one another, but not behind every transaction that writes
  // a row referencing the user (webhook deliveries, meetings: their foreign-key checks take KEY
  // SHARE). A deletion takes the whole row at once, as its DELETE will.
  const query = db<UserRow>('users').where({ id });
  const row = await (deleting ? query.forUpdate() : query.forNoKeyUpdate()).first();
  return row && toRecord(row);
}

/**
 * Deletes the user's row; their keys, meetings (with transcripts and history) and webhook deliveries
 * go with it (foreign keys cascade). Their recordings must be marked `deleting` first: those rows
 * outlive the user until their files are removed. False: no such user.
 */
export async function deleteUserRow(db: Db, id: number): Promise<boolean> {
  return (await db('users').where({ id }).delete()) > 0;
}
