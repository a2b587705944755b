import type { Db, Knex } from './knex.js';

/** RFC 7396-style merge: members set to null are removed, others replace what was there. */
export function splitMergePatch(patch: Record<string, unknown>): {
  set: Record<string, unknown>;
  remove: string[];
} {
  const set: Record<string, unknown> = {};
  const remove: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) remove.push(key);
    else if (value !== undefined) set[key] = value;
  }
  return { set, remove };
}

/** A jsonb `data` column with the patch merged in, as SQL (for an update, or a condition on it). */
export function mergedData(db: Db, patch: Record<string, unknown>): Knex.Raw {
  const { set, remove } = splitMergePatch(patch);
  return db.raw('(data || ?::jsonb) - ?::text[]', [JSON.stringify(set), remove]);
}
