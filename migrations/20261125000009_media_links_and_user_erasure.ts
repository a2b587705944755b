import type { Knex } from 'knex';

/**
 * Media links become signed and time-limited: each user gets the secret their links are signed with
 * (rotating it refuses every link issued before), and the per-recording token that never expired goes.
 * A recording row may outlive its user: deleting a user marks their recordings `deleting` and the
 * row (now without a user) stays until the sweep has removed its files, so no file loses track.
 */
// 244 random bits, from a function core Postgres has (pgcrypto may be absent); the API writes its own.
const RANDOM_SECRET = "replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE users ADD COLUMN media_link_secret text NOT NULL DEFAULT ${RANDOM_SECRET}`);
  await knex.schema.alterTable('recordings', (table) => {
    table.dropColumn('media_token');
    table.dropForeign(['user_id']);
  });
  await knex.raw('ALTER TABLE recordings ALTER COLUMN user_id DROP NOT NULL');
  await knex.schema.alterTable('recordings', (table) => {
    table.foreign('user_id').references('id').inTable('users').onDelete('SET NULL');
  });
  // Only a recording on its way out may lose its user: a user is never deleted from under a live one.
  await knex.raw(
    `ALTER TABLE recordings ADD CONSTRAINT recordings_user_unless_deleting
     CHECK (user_id IS NOT NULL OR state = 'deleting')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE recordings DROP CONSTRAINT recordings_user_unless_deleting');
  // Rows of deleted users can't be kept under NOT NULL; their files must be removed by hand.
  await knex('recordings').whereNull('user_id').delete();
  await knex.schema.alterTable('recordings', (table) => {
    table.dropForeign(['user_id']);
  });
  await knex.raw('ALTER TABLE recordings ALTER COLUMN user_id SET NOT NULL');
  await knex.schema.alterTable('recordings', (table) => {
    table.foreign('user_id').references('id').inTable('users').onDelete('CASCADE');
  });
  await knex.raw(`ALTER TABLE recordings ADD COLUMN media_token text NOT NULL DEFAULT ${RANDOM_SECRET}`);
  await knex.raw('ALTER TABLE recordings ALTER COLUMN media_token DROP DEFAULT');
  await knex.schema.alterTable('users', (table) => {
    table.dropColumn('media_link_secret');
  });
}
