import type { Knex } from 'knex';

/**
 * Signed-in bots (issue 34): the operator's bot accounts, one browser session each (Playwright storage
 * state) sealed with BOT_ACCOUNT_KEY, and on each meeting whether its bot was asked to sign in and
 * which account it took. An account's bots in use are its meetings that have not ended, so an
 * account is given back by the meeting's end itself, whoever ends it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('bot_accounts', (table) => {
    table.increments('id').primary();
    table.text('platform').notNullable();
    table.text('display_name').notNullable();
    /** AES-256-GCM: version ‖ nonce ‖ tag ‖ ciphertext (shared/infra/sealing.ts). */
    table.binary('sealed_storage_state').notNullable();
    table.text('status').notNullable().defaultTo('active');
    table.text('status_reason').nullable();
    table.timestamp('status_changed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.index(['platform', 'status'], 'bot_accounts_pool');
  });
  await knex.raw(
    `ALTER TABLE bot_accounts ADD CONSTRAINT bot_accounts_status_check CHECK (status IN ('active', 'expired', 'disabled'))`,
  );
  await knex.schema.alterTable('meetings', (table) => {
    table.boolean('authenticated').notNullable().defaultTo(false);
    table.integer('bot_account_id').nullable().references('id').inTable('bot_accounts').onDelete('SET NULL');
  });
  await knex.raw(
    `CREATE INDEX meetings_live_by_bot_account ON meetings (bot_account_id) WHERE bot_account_id IS NOT NULL AND status NOT IN ('completed', 'failed')`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS meetings_live_by_bot_account');
  await knex.schema.alterTable('meetings', (table) => {
    table.dropColumn('bot_account_id');
    table.dropColumn('authenticated');
  });
  await knex.schema.dropTable('bot_accounts');
}
