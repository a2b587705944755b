import type { Knex } from 'knex';

/**
 * Who launched a meeting's bot: the per-launch session id (the claim that makes a launch happen
 * once, whatever the retries) and the worker that owns the container.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (table) => {
    table.text('launch_session_id');
    table.text('worker_id');
    table.timestamp('launched_at', { useTz: true });
  });
  await knex.raw('CREATE UNIQUE INDEX meetings_launch_session_id ON meetings (launch_session_id)');
  // Human-readable context for a transition (exit code, last log lines), beside the machine reason.
  await knex.schema.alterTable('meeting_status_transitions', (table) => {
    table.text('detail');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meeting_status_transitions', (table) => {
    table.dropColumn('detail');
  });
  await knex.raw('DROP INDEX IF EXISTS meetings_launch_session_id');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumn('launched_at');
    table.dropColumn('worker_id');
    table.dropColumn('launch_session_id');
  });
}
