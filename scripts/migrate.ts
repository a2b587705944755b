import { loadConfigOrExit } from '../shared/infra/config.js';
import { createKnex } from '../shared/infra/knex.js';
import { ensureDatabaseExists, migrateToLatest, rollbackAll } from '../shared/infra/migrate.js';

/** `db:migrate` creates the database if needed and applies every pending migration; `--rollback-all` undoes them. */
const config = loadConfigOrExit();
const created = await ensureDatabaseExists(config.DATABASE_URL, (url) => createKnex(url, 1));
if (created) process.stdout.write(`created database ${new URL(config.DATABASE_URL).pathname.slice(1)}\n`);
const db = createKnex(config.DATABASE_URL, 1);
try {
  if (process.argv.includes('--rollback-all')) {
    await rollbackAll(db);
    process.stdout.write('rolled back every migration\n');
  } else {
    const applied = await migrateToLatest(db);
    process.stdout.write(applied.length ? `applied ${applied.join(', ')}\n` : 'database is up to date\n');
  }
} finally {
  await db.destroy();
}
