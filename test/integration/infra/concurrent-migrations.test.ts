import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../migrations/index.js';
import { createKnex, type Knex } from '../../../shared/infra/knex.js';
import { migrateToLatest } from '../../../shared/infra/migrate.js';
import { createTestDatabase, type TestDatabase } from '../../support/database.js';

let database: TestDatabase;
const processes: Knex[] = [];

beforeAll(async () => {
  database = await createTestDatabase(undefined, { migrate: false });
});
afterAll(async () => {
  await Promise.all(processes.map((db) => db.destroy()));
  await database?.drop();
});

// Several pods of a fresh deployment (the API's, a migration job's) start at once on an empty
// database: each runs the migrations. Knex's own lock table is made by the first of them, so without
// more they raced: a second insert of its lock row, or "Migration table is already locked" for good.
describe('migrations run by several processes at once on an empty database', () => {
  it('are applied once, by one of them, and every process starts', async () => {
    for (let index = 0; index < 4; index += 1) processes.push(createKnex(database.url, 2));
    const applied = await Promise.all(processes.map((db) => migrateToLatest(db)));
    expect(applied.flat().sort()).toEqual(MIGRATIONS.map(([name]) => name).sort());
    expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
    expect(await database.db('knex_migrations_lock').select('is_locked')).toEqual([{ is_locked: 0 }]);
    expect(await migrateToLatest(processes[0]!)).toEqual([]);
  });

  it('hold one connection each for the lock, even with a pool of one', async () => {
    const single = createKnex(database.url, 1);
    processes.push(single);
    expect(await migrateToLatest(single)).toEqual([]);
  });
});
