import { randomBytes } from 'node:crypto';
import type { Db } from '../infra/knex.js';

/**
 * Each user's recordings' media links are signed with a secret of their own, kept with the user so
 * every API replica signs and checks links alike. Replacing it (rotation) refuses every link
 * signed before; deleting the user takes it with them.
 */

/**
 * The secret the user's media links are signed with, while the user exists and holds at least one
 * live API key; null otherwise, so a user shut out of the API is shut out of their links too.
 */
export async function activeMediaLinkSecret(db: Db, userId: number): Promise<string | null> {
  const row = await db('users as u')
    .where('u.id', userId)
    .whereExists((keys) =>
      keys.select(db.raw('1')).from('api_keys as k').whereRaw('k.user_id = u.id').whereNull('k.revoked_at'),
    )
    .first<{ media_link_secret: string } | undefined>('u.media_link_secret');
  return row?.media_link_secret ?? null;
}

/** A new secret for the user's media links: every link signed before is refused. False: no such user. */
export async function rotateMediaLinkSecret(db: Db, userId: number): Promise<boolean> {
  const updated = await db('users')
    .where({ id: userId })
    .update({ media_link_secret: randomBytes(32).toString('base64url') });
  return updated > 0;
}
