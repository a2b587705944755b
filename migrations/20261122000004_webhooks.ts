import type { Knex } from 'knex';

/**
 * Webhooks: a user-wide endpoint (and optionally one per bot) with a signing secret, and the
 * delivery outbox. A delivery row is written in the same transaction as the change it reports, so
 * an event exists exactly when its change was committed; BullMQ jobs then carry it out.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.text('webhook_url');
    table.text('webhook_secret');
    table.boolean('webhook_partial_segments').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('meetings', (table) => {
    table.text('webhook_url');
    table.text('webhook_secret');
    table.boolean('webhook_partial_segments').notNullable().defaultTo(false);
  });

  await knex.schema.createTable('webhook_deliveries', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    // Orders a meeting's deliveries: they go out one at a time, oldest first.
    table.bigIncrements('seq', { primaryKey: false });
    table.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.integer('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    table.text('event_type').notNullable();
    table.jsonb('payload').notNullable();
    table.text('url').notNullable();
    table.text('status').notNullable().defaultTo('pending');
    table.integer('attempts').notNullable().defaultTo(0);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    // Retries stop this long after the window opened (creation, or a manual retry).
    table.timestamp('window_started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('last_attempt_at', { useTz: true });
    table.integer('last_status_code');
    table.text('last_error');
    table.timestamp('delivered_at', { useTz: true });
    table.timestamp('failed_at', { useTz: true });
    table.index(['user_id', 'created_at']);
  });
  await knex.raw(`
    ALTER TABLE webhook_deliveries
      ADD CONSTRAINT webhook_deliveries_status_valid CHECK (status IN ('pending', 'delivered', 'failed'))
  `);
  await knex.raw(`
    CREATE INDEX webhook_deliveries_pending_per_meeting
      ON webhook_deliveries (meeting_id, seq) WHERE status = 'pending'
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('webhook_deliveries');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumns('webhook_url', 'webhook_secret', 'webhook_partial_segments');
  });
  await knex.schema.alterTable('users', (table) => {
    table.dropColumns('webhook_url', 'webhook_secret', 'webhook_partial_segments');
  });
}
