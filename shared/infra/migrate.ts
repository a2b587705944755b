import { MIGRATIONS } from '../../migrations/index.js';
import type { Knex } from './knex.js';

const migrationSource: Knex.MigrationSource<readonly [string, Knex.Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

export async function rollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback({ migrationSource }, true);
}

/** Creates the database named in the URL when it doesn't exist yet (first start on a fresh machine). */
export async function ensureDatabaseExists(
  databaseUrl: string,
  createKnexFor: (url: string) => Knex,
): Promise<boolean> {
  const url = new URL(databaseUrl);
  const databaseName = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!databaseName) throw new Error('DATABASE_URL has no database name');
  url.pathname = '/postgres';
  const admin = createKnexFor(url.toString());
  try {
    const existing = await admin.raw('SELECT 1 FROM pg_database WHERE datname = ?', [databaseName]);
    if (existing.rows.length > 0) return false;
    await admin.raw('CREATE DATABASE ??', [databaseName]);
    return true;
  } finally {
    await admin.destroy();
  }
}
