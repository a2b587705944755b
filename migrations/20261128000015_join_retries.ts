import type { Knex } from 'knex';

/**
 * Join retries (issue 34): `join_retries` counts the launches made again after a bot was refused with
 * a reason a retry can help (blocked_by_platform, meeting_unreachable); `retry_due_at` is when the
 * pending one is due (null: none pending), so the reconciler can tell a retry waiting out its backoff
 * from a launch nobody took.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (table) => {
    table.integer('join_retries').notNullable().defaultTo(0);
    table.timestamp('retry_due_at', { useTz: true }).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumn('retry_due_at');
    table.dropColumn('join_retries');
  });
}
