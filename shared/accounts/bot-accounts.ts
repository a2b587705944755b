import type { Platform } from '../contract/platforms.js';
import type { StorageState } from '../contract/storage-state.js';
import { ConflictError, NotFoundError } from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import type { BotAccountSessions } from './bot-account-sessions.js';
import {
  type BotAccountChanges,
  type BotAccountRecord,
  deleteBotAccount,
  findBotAccount,
  insertBotAccount,
  listBotAccounts,
  lockBotAccount,
  updateBotAccount,
} from './bot-accounts-store.js';

const NOT_FOUND = 'Bot account not found';
export const DISABLED_BY_OPERATOR = 'disabled by the operator';

/** The admin API's operations on bot accounts. The session goes in sealed and never comes back out. */
export async function registerBotAccount(
  db: Knex,
  sessions: BotAccountSessions,
  input: { platform: Platform; displayName: string; storageState: StorageState },
): Promise<BotAccountRecord> {
  return insertBotAccount(db, {
    platform: input.platform,
    displayName: input.displayName,
    sealedStorageState: sessions.seal(input.storageState),
  });
}

export function botAccounts(db: Knex, page: { skip: number; limit: number }): Promise<BotAccountRecord[]> {
  return listBotAccounts(db, page);
}

export async function botAccount(db: Knex, id: number): Promise<BotAccountRecord> {
  const account = await findBotAccount(db, id);
  if (!account) throw new NotFoundError(NOT_FOUND);
  return account;
}

/**
 * Renames, replaces the session of, enables or disables an account. A new session makes an expired
 * account active again (that is what an operator renews it for); `enabled: true` does too.
 */
export async function changeBotAccount(
  db: Knex,
  sessions: BotAccountSessions,
  id: number,
  changes: {
    displayName?: string | undefined;
    storageState?: StorageState | undefined;
    enabled?: boolean | undefined;
  },
): Promise<BotAccountRecord> {
  const current = await botAccount(db, id);
  const update: BotAccountChanges = { displayName: changes.displayName };
  if (changes.storageState !== undefined) update.sealedStorageState = sessions.seal(changes.storageState);
  if (changes.enabled === false) update.status = { status: 'disabled', reason: DISABLED_BY_OPERATOR };
  else if (changes.enabled === true || (changes.storageState !== undefined && current.status === 'expired')) {
    if (current.status !== 'active') update.status = { status: 'active', reason: null };
  }
  if (!(await updateBotAccount(db, id, update))) throw new NotFoundError(NOT_FOUND);
  return botAccount(db, id);
}

/** Deletes an account no bot is using (409 while one is: disable it first, and stop or wait for its bots). */
export async function removeBotAccount(db: Knex, id: number): Promise<void> {
  await db.transaction(async (trx) => {
    if (!(await lockBotAccount(trx, id))) throw new NotFoundError(NOT_FOUND);
    const account = await findBotAccount(trx, id);
    if (account && account.botsInUse > 0) {
      throw new ConflictError(
        `Bot account ${id} is in use by ${account.botsInUse} bot(s): disable it (PATCH enabled: false) and delete it once they end`,
      );
    }
    await deleteBotAccount(trx, id);
  });
}
