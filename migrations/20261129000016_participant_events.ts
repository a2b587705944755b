import type { Knex } from 'knex';

/**
 * Participants as events (issue 34): what bots saw of the people in a meeting. `participant_events`
 * holds each change once (joined, left, speech started, speech stopped), keyed by the bot session's
 * message (`event_key`) so one delivered twice is stored once (every message is kept, `applied` when it changed something); `meeting_participants` is one row
 * per name with what is true now (present, speaking), so a relaunched bot reporting someone already
 * present (or a second bot's look) changes nothing. Both deleted with the meeting.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('meeting_participants', (table) => {
    table.integer('meeting_id').notNullable().references('id').inTable('meetings').onDelete('CASCADE');
    table.text('name').notNullable();
    table.timestamp('first_seen_at', { useTz: true }).notNullable();
    table.timestamp('last_seen_at', { useTz: true }).notNullable();
    table.boolean('present').notNullable();
    table.boolean('speaking').notNullable().defaultTo(false);
    table.primary(['meeting_id', 'name']);
  });
  await knex.schema.createTable('participant_events', (table) => {
    table.bigIncrements('id').primary();
    table.integer('meeting_id').notNullable().references('id').inTable('meetings').onDelete('CASCADE');
    table.text('event_key').notNullable();
    table.text('type').notNullable();
    table.text('name').notNullable();
    table.timestamp('at', { useTz: true }).notNullable();
    /** `at` on the transcript's time line (seconds), as segments' start. */
    table.double('start_seconds').notNullable();
    /**
     * Whether it changed anything: a message that repeats what is true (someone already present) is
     * kept only so that, delivered again, it is still recognised; only applied ones are events.
     */
    table.boolean('applied').notNullable();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['meeting_id', 'event_key']);
    table.index(['meeting_id', 'id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('participant_events');
  await knex.schema.dropTable('meeting_participants');
}
