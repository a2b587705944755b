import type { Knex } from 'knex';

/**
 * Workers announce themselves: one row per worker, its Docker host, its slots and bots, refreshed by
 * a heartbeat. A worker whose heartbeat lapsed has lost its host; the meetings it ran are relaunched
 * elsewhere, at most `relaunch_count` times, and a pending relaunch is timed from `relaunch_requested_at`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workers', (table) => {
    table.string('worker_id', 64).primary();
    /** The Docker engine this worker starts bots on (its name and id as the engine reports them). */
    table.string('docker_host', 300).notNullable();
    table.integer('slots').notNullable();
    /** Bots running or starting on this worker. */
    table.integer('bots').notNullable().defaultTo(0);
    /** False while the worker drains (shutting down): it takes no launches. */
    table.boolean('accepting').notNullable().defaultTo(true);
    table.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('heartbeat_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.alterTable('meetings', (table) => {
    table.integer('relaunch_count').notNullable().defaultTo(0);
    table.timestamp('relaunch_requested_at', { useTz: true }).nullable();
  });
  // The lost-host sweep reads live meetings by worker.
  await knex.raw(
    `CREATE INDEX meetings_live_by_worker ON meetings (worker_id)
     WHERE status IN ('requested', 'joining', 'awaiting_admission', 'active')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS meetings_live_by_worker');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumn('relaunch_requested_at');
    table.dropColumn('relaunch_count');
  });
  await knex.schema.dropTable('workers');
}
