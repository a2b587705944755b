import type { Knex } from 'knex';

/**
 * Calendar feeds (issue 33 part 2): a user's iCalendar feed URL, polled by the workers, each
 * occurrence with a meeting link scheduled as a bot. A poll is claimed with a lease (`lease_token`,
 * `lease_until`) so one worker at a time polls a feed; the last poll's outcome is kept for the API.
 * Which meeting an occurrence got is the meeting's own `schedule_key` (`feed:<id>:<UID>[:<recurrence>]`,
 * unique per user), so no second table can drift from it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('calendar_feeds', (table) => {
    table.increments('id').primary();
    table.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.text('url').notNullable();
    table.text('bot_name');
    table.text('events').notNullable().defaultTo('all');
    table.text('marker').notNullable().defaultTo('#notetaker');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('next_poll_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('lease_token');
    table.timestamp('leased_at', { useTz: true });
    table.timestamp('lease_until', { useTz: true });
    table.timestamp('last_poll_at', { useTz: true });
    table.boolean('last_poll_ok');
    table.text('last_poll_error');
    table.integer('last_poll_occurrences');
    table.integer('last_poll_scheduled');
    table.integer('last_poll_moved');
    table.integer('last_poll_cancelled');
    // Events left out and why (an unknown time zone, a link the service can't follow), at most a few.
    table.jsonb('last_poll_notes');
    table.index(['user_id', 'id']);
  });
  await knex.raw(`
    ALTER TABLE calendar_feeds
      ADD CONSTRAINT calendar_feeds_events_valid CHECK (events IN ('all', 'marked'))
  `);
  await knex.raw('CREATE INDEX calendar_feeds_due ON calendar_feeds (next_poll_at)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('calendar_feeds');
}
