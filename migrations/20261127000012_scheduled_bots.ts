import type { Knex } from 'knex';

/**
 * Scheduled bots (issue 33): `join_at` is when a requested meeting's bot is to launch (null: at
 * once). `schedule_key` names the occurrence a scheduler (a calendar feed) created it for, unique
 * per user, so scheduling the same occurrence twice finds the first meeting instead of a second.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (table) => {
    table.timestamp('join_at', { useTz: true }).nullable();
    table.text('schedule_key').nullable();
    table.unique(['user_id', 'schedule_key'], { indexName: 'meetings_schedule_key_per_user' });
  });
  await knex.raw(
    `CREATE INDEX meetings_scheduled_waiting ON meetings (join_at) WHERE status = 'requested' AND join_at IS NOT NULL AND launch_session_id IS NULL`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS meetings_scheduled_waiting');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropUnique(['user_id', 'schedule_key'], 'meetings_schedule_key_per_user');
    table.dropColumn('schedule_key');
    table.dropColumn('join_at');
  });
}
