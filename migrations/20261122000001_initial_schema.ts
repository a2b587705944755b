import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('users', (table) => {
    table.increments('id');
    table.text('email').notNullable().unique();
    table.text('name');
    table.text('image_url');
    table.integer('max_concurrent_bots').notNullable();
    table.jsonb('data').notNullable().defaultTo('{}');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'ALTER TABLE users ADD CONSTRAINT users_max_concurrent_bots_non_negative CHECK (max_concurrent_bots >= 0)',
  );

  await knex.schema.createTable('api_keys', (table) => {
    table.increments('id');
    table.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.text('name');
    table.text('prefix').notNullable();
    table.text('key_hash').notNullable().unique();
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('last_used_at', { useTz: true });
    table.timestamp('revoked_at', { useTz: true });
    table.index(['user_id']);
  });

  await knex.schema.createTable('meetings', (table) => {
    table.increments('id');
    table.integer('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.text('platform').notNullable();
    table.text('native_meeting_id').notNullable();
    table.text('status').notNullable();
    table.text('meeting_url').notNullable();
    table.text('passcode');
    table.text('bot_name').notNullable();
    table.text('language');
    table.text('task').notNullable().defaultTo('transcribe');
    table.text('bot_container_id');
    table.timestamp('start_time', { useTz: true });
    table.timestamp('end_time', { useTz: true });
    table.jsonb('data').notNullable().defaultTo('{}');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['user_id', 'created_at']);
    table.index(['user_id', 'platform', 'native_meeting_id', 'created_at']);
    table.index(['status']);
  });
  await knex.raw(`
    ALTER TABLE meetings
      ADD CONSTRAINT meetings_platform_valid CHECK (platform IN ('google_meet', 'teams')),
      ADD CONSTRAINT meetings_status_valid
        CHECK (status IN ('requested', 'joining', 'awaiting_admission', 'active', 'completed', 'failed')),
      ADD CONSTRAINT meetings_task_valid CHECK (task IN ('transcribe', 'translate'))
  `);
  // At most one bot in flight per user + platform + native id, enforced by the database itself.
  await knex.raw(`
    CREATE UNIQUE INDEX meetings_one_live_bot_per_meeting
      ON meetings (user_id, platform, native_meeting_id)
      WHERE status NOT IN ('completed', 'failed')
  `);

  await knex.schema.createTable('meeting_status_transitions', (table) => {
    table.bigIncrements('id');
    table.integer('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    table.text('from_status');
    table.text('to_status').notNullable();
    table.text('source').notNullable();
    table.text('reason');
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['meeting_id', 'id']);
  });

  await knex.schema.createTable('transcript_segments', (table) => {
    table.bigIncrements('id');
    table.integer('meeting_id').notNullable().references('meetings.id').onDelete('CASCADE');
    table.text('segment_id').notNullable();
    table.double('start_seconds').notNullable();
    table.double('end_seconds').notNullable();
    table.text('text').notNullable();
    table.text('speaker');
    table.text('language');
    table.timestamp('absolute_start_time', { useTz: true }).notNullable();
    table.timestamp('absolute_end_time', { useTz: true }).notNullable();
    table.boolean('is_final').notNullable().defaultTo(false);
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.unique(['meeting_id', 'segment_id']);
    table.index(['meeting_id', 'start_seconds']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('transcript_segments');
  await knex.schema.dropTableIfExists('meeting_status_transitions');
  await knex.schema.dropTableIfExists('meetings');
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('users');
}
