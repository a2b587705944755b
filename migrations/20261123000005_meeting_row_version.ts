import type { Knex } from 'knex';

/**
 * A per-row counter every update of a meeting bumps (a trigger, so no writer can forget it). With the
 * count of a user's meetings and their highest id, the sum of these counters changes whenever
 * anything in the list does, whatever order transactions commit in: the version a cached
 * GET /meetings answer is keyed by.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (table) => {
    table.bigInteger('row_version').notNullable().defaultTo(0);
  });
  await knex.raw(`
    CREATE FUNCTION meetings_bump_row_version() RETURNS trigger AS $$
    BEGIN
      NEW.row_version := OLD.row_version + 1;
      RETURN NEW;
    END;
    $$ LANGUAGE plpgsql`);
  await knex.raw(`
    CREATE TRIGGER meetings_row_version BEFORE UPDATE ON meetings
    FOR EACH ROW EXECUTE FUNCTION meetings_bump_row_version()`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TRIGGER IF EXISTS meetings_row_version ON meetings');
  await knex.raw('DROP FUNCTION IF EXISTS meetings_bump_row_version()');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumn('row_version');
  });
}
