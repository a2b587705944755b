import type { Knex } from 'knex';

/**
 * Issue 48: before a bot account is marked expired, the worker counts the sign-in screens its bots
 * met in ended meetings too (shared/accounts/bot-accounts-store.ts, signInEvidenceOfAccount). The
 * index of 20261128000014 holds only live meetings; this one finds an account's ended ones without
 * reading every meeting.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    'CREATE INDEX meetings_by_bot_account ON meetings (bot_account_id) WHERE bot_account_id IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS meetings_by_bot_account');
}
