import type { Knex } from 'knex';

/**
 * The meeting chat messages bots read (issue 28): one row per message, keyed by the page's own id of
 * it within the meeting, so a message a bot reports twice (or a relaunched bot reads again) is stored
 * once. Deleted with the meeting (ON DELETE CASCADE).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chat_messages', (table) => {
    table.increments('id').primary();
    table.integer('meeting_id').notNullable().references('id').inTable('meetings').onDelete('CASCADE');
    table.text('message_key').notNullable();
    table.text('sender').notNullable();
    table.text('text').notNullable();
    table.boolean('from_bot').notNullable();
    table.timestamp('sent_at', { useTz: true }).notNullable();
    /** `sent_at` on the transcript's time line (seconds), as segments' start. */
    table.double('start_seconds').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['meeting_id', 'message_key']);
    table.index(['meeting_id', 'start_seconds', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('chat_messages');
}
