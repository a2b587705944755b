import { checkBotAccountKeys } from '../../shared/accounts/bot-account-keys.js';
import { BotAccountSessions } from '../../shared/accounts/bot-account-sessions.js';
import type { Config } from '../../shared/infra/config.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';

/**
 * At a worker's start, with BOT_ACCOUNT_KEY set: every stored bot account session checked against
 * the worker's keys (shared/accounts/bot-account-keys.ts). A session under a key id the worker lacks
 * is an error naming that key id and the accounts, before any signed-in launch fails on it; sessions
 * under a previous key are re-sealed with the current one. Never stops the worker (a failure of the
 * check itself is logged): launches check each session again when they take it.
 */
export async function checkBotAccountKeysAtStart(deps: {
  db: Knex;
  config: Pick<Config, 'BOT_ACCOUNT_KEY' | 'BOT_ACCOUNT_PREVIOUS_KEYS'>;
  log: Logger;
}): Promise<void> {
  const { db, config, log } = deps;
  if (config.BOT_ACCOUNT_KEY === undefined) return;
  const sessions = new BotAccountSessions(config.BOT_ACCOUNT_KEY, config.BOT_ACCOUNT_PREVIOUS_KEYS);
  try {
    const report = await checkBotAccountKeys(db, sessions);
    const keyIds = sessions.keyIds;
    for (const { keyId, accountIds } of report.unknown) {
      log.error(
        { keyId, botAccountIds: accountIds, keyIds },
        `bot account key mismatch: ${accountIds.length} bot account session(s) are sealed with key id ${keyId}, which this worker does not have (BOT_ACCOUNT_KEY has key id ${keyIds.current}); their signed-in launches will fail until the API and every worker share one BOT_ACCOUNT_KEY, or the key is in BOT_ACCOUNT_PREVIOUS_KEYS`,
      );
    }
    if (report.resealed.length > 0) {
      log.info(
        { botAccountIds: report.resealed, keyId: keyIds.current },
        'bot account sessions re-sealed with the current BOT_ACCOUNT_KEY',
      );
    }
    log.info(
      {
        keyIds,
        current: report.current + report.resealed.length,
        unknown: report.unknown.reduce((sum, entry) => sum + entry.accountIds.length, 0),
      },
      'bot account sessions checked against BOT_ACCOUNT_KEY',
    );
  } catch (error) {
    log.error({ err: error }, 'could not check the bot account sessions against BOT_ACCOUNT_KEY');
  }
}
