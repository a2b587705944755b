import type { Knex } from 'knex';

/**
 * Recordings: the meeting audio a bot records when asked (`meetings.recording_enabled`). One row per
 * bot launch that recorded (a relaunch after a lost host starts a new recording), its chunks listed
 * as they are stored, so a recording can be assembled from exactly what arrived. A row being deleted
 * (by DELETE, with its meeting, or by retention) is kept in state `deleting`, detached from its
 * meeting, until its files are gone: a deleted meeting never leaves files behind.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('meetings', (table) => {
    table.boolean('recording_enabled').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('recordings', (table) => {
    table.increments('id').primary();
    table.integer('meeting_id').nullable().references('id').inTable('meetings').onDelete('SET NULL');
    table.integer('user_id').notNullable().references('id').inTable('users').onDelete('CASCADE');
    table.text('session_id').notNullable();
    table.text('format').notNullable();
    table.text('state').notNullable().defaultTo('recording');
    table.text('storage_key').notNullable();
    /** The transcript time (seconds) the recording's time zero stands for: 0 unless a relaunch. */
    table.double('start_seconds').notNullable().defaultTo(0);
    table.double('duration_seconds').notNullable().defaultTo(0);
    table.bigInteger('size_bytes').notNullable().defaultTo(0);
    /** The last chunk's number, once the bot said the recording is complete. */
    table.integer('final_seq').nullable();
    table.text('error').nullable();
    /** Lets a browser's <audio> element fetch the media without an API key header. */
    table.text('media_token').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('last_chunk_at', { useTz: true }).nullable();
    table.timestamp('completed_at', { useTz: true }).nullable();
    table.unique(['meeting_id', 'session_id']);
  });
  await knex.raw(
    `ALTER TABLE recordings ADD CONSTRAINT recordings_state_check
     CHECK (state IN ('recording', 'ready', 'failed', 'deleting'))`,
  );
  await knex.raw(`CREATE INDEX recordings_unfinished ON recordings (state) WHERE state <> 'ready'`);
  await knex.raw(`CREATE INDEX recordings_ready_by_age ON recordings (completed_at) WHERE state = 'ready'`);
  await knex.schema.createTable('recording_chunks', (table) => {
    table.integer('recording_id').notNullable().references('id').inTable('recordings').onDelete('CASCADE');
    table.integer('seq').notNullable();
    table.integer('size_bytes').notNullable();
    table.timestamp('stored_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['recording_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('recording_chunks');
  await knex.schema.dropTable('recordings');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumn('recording_enabled');
  });
}
