import { MIGRATIONS } from '../../migrations/index.js';
import knexPkg from 'knex';
import type { Knex } from './knex.js';

const migrationSource: Knex.MigrationSource<readonly [string, Knex.Migration]> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: ([name]) => name,
  getMigration: async ([, migration]) => migration,
};

/** The Postgres advisory lock whose holder migrates (any fixed number of this deployment's own). */
const MIGRATION_LOCK_KEY = 4_051_994_213;

/**
 * Applies the migrations not applied yet; returns their names. Processes starting at once on one
 * database (a fresh deployment's pods) take turns: each holds a Postgres advisory lock, on a
 * connection of its own beside `knex`'s pool, while it migrates, so the later ones find nothing left
 * to do. (Knex's own lock lives in a table the first run creates: two first runs collided making it.)
 */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const lock = knexPkg({ client: 'pg', connection: knex.client.config.connection, pool: { min: 0, max: 1 } });
  try {
    return await lock.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY]);
      const [, applied] = (await knex.migrate.latest({ migrationSource })) as [number, string[]];
      return applied;
    });
  } finally {
    await lock.destroy();
  }
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
