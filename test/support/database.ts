import { randomBytes } from 'node:crypto';
import { createKnex, type Knex } from '../../shared/infra/knex.js';
import { migrateToLatest } from '../../shared/infra/migrate.js';
import { TEST_POSTGRES_URL } from './env.js';

export interface TestDatabase {
  url: string;
  db: Knex;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of its own for one test file; `drop()` removes it. `serverUrl` names
 * the Postgres server to create it on (any database there the user may connect to); `migrate: false`
 * leaves it empty, as a fresh deployment's is.
 */
export async function createTestDatabase(
  serverUrl = TEST_POSTGRES_URL,
  { migrate = true }: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const name = `meetbot_test_${randomBytes(6).toString('hex')}`;
  const admin = createKnex(serverUrl, 1);
  await admin.raw('CREATE DATABASE ??', [name]);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = createKnex(url.toString(), 20);
  if (migrate) await migrateToLatest(db);
  return {
    url: url.toString(),
    db,
    async drop() {
      await db.destroy();
      await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [name]);
      await admin.destroy();
    },
  };
}
