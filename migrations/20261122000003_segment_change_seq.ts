import type { Knex } from 'knex';

/**
 * A global, increasing sequence number on every segment write, so a live stream can resume from
 * "everything changed after N" (SSE Last-Event-ID) straight from Postgres, the source of truth.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('CREATE SEQUENCE transcript_segment_change_seq');
  await knex.schema.alterTable('transcript_segments', (table) => {
    table
      .bigInteger('change_seq')
      .notNullable()
      .defaultTo(knex.raw("nextval('transcript_segment_change_seq')"));
    table.index(['meeting_id', 'change_seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('transcript_segments', (table) => {
    table.dropIndex(['meeting_id', 'change_seq']);
    table.dropColumn('change_seq');
  });
  await knex.raw('DROP SEQUENCE IF EXISTS transcript_segment_change_seq');
}
