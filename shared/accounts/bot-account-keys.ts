import type { Knex } from '../infra/knex.js';
import type { BotAccountSessions } from './bot-account-sessions.js';

/** What the stored sessions' keys look like to one process (checkBotAccountKeys). */
export interface BotAccountKeysReport {
  /** Sessions sealed with the current BOT_ACCOUNT_KEY. */
  current: number;
  /** Sessions that were under a previous key (or sealed before key ids) and are now re-sealed. */
  resealed: number[];
  /**
   * Sessions under a key this process does not have, by key id (`unknown`: sealed before key ids and
   * opening with none of the keys): their launches would fail.
   */
  unknown: Array<{ keyId: string; accountIds: number[] }>;
}

/**
 * Checks every stored bot account session against this process's keys (a worker at start-up): names
 * the key ids it lacks, so a BOT_ACCOUNT_KEY that differs from the API's shows before any signed-in
 * launch fails, and re-seals with the current key the sessions under a previous one, which finishes a
 * rotation. Each re-seal is conditional on the row still holding what was read, so a session replaced
 * meanwhile (PATCH /admin/bot-accounts) or re-sealed by another worker is left alone.
 */
export async function checkBotAccountKeys(
  db: Knex,
  sessions: BotAccountSessions,
): Promise<BotAccountKeysReport> {
  const rows = (await db('bot_accounts').select('id', 'sealed_storage_state').orderBy('id')) as Array<{
    id: number;
    sealed_storage_state: Buffer;
  }>;
  const report: BotAccountKeysReport = { current: 0, resealed: [], unknown: [] };
  for (const row of rows) {
    let standing: ReturnType<BotAccountSessions['standing']>;
    try {
      standing = sessions.standing(row.sealed_storage_state);
    } catch {
      standing = { unknown: null };
    }
    if (standing === 'current') {
      report.current += 1;
    } else if (standing === 'reseal') {
      const updated = await db('bot_accounts')
        .where({ id: row.id, sealed_storage_state: row.sealed_storage_state })
        .update({ sealed_storage_state: sessions.reseal(row.sealed_storage_state) });
      if (updated > 0) report.resealed.push(row.id);
    } else {
      const keyId = standing.unknown ?? 'unknown';
      const entry = report.unknown.find((candidate) => candidate.keyId === keyId);
      if (entry) entry.accountIds.push(row.id);
      else report.unknown.push({ keyId, accountIds: [row.id] });
    }
  }
  return report;
}
