import {
  botAccountIdOfMeeting,
  expireBotAccountOfMeeting,
  findBotAccount,
  lockBotAccount,
  SIGN_IN_EVIDENCE_HOURS,
  signInEvidenceOfAccount,
} from '../../shared/accounts/bot-accounts-store.js';
import { BotAccountReasons } from '../../shared/contract/events.js';
import type { Db, Knex } from '../../shared/infra/knex.js';
import type { MeetingEvents, MeetingStatusChanged } from '../../shared/meetings/events.js';
import { recordStatusChange } from '../../shared/meetings/transitions.js';

/** BOT_ACCOUNT_EXPIRY_USERS' default, until the worker's config sets it (setBotAccountExpiryUsers). */
let expiryUsers = 2;

/**
 * How many different users, in as many different meetings, must have met a sign-in screen with one
 * account before it is marked expired. The worker sets it from BOT_ACCOUNT_EXPIRY_USERS at start-up:
 * the status-change hook runs inside every transition and has no config of its own.
 */
export function setBotAccountExpiryUsers(users: number): void {
  expiryUsers = users;
}

/**
 * A signed-in bot ended with `sign_in_expired`: it met a sign-in screen although it was signed in.
 * That is what a session that stopped working shows, but also what a meeting that wants another
 * account (another organisation's, a Teams tenant's) shows, and the bot can't tell the two apart:
 * the pages are the same. So one meeting proves nothing about the session, and one user could
 * otherwise take every account out of the pool with meetings of their choosing. The account is
 * marked `expired` (out of the pool) only when meetings of BOT_ACCOUNT_EXPIRY_USERS different users,
 * in as many different meetings, met a sign-in screen with it within SIGN_IN_EVIDENCE_HOURS and
 * since its session was last set; the meeting's history then gets a `bot_account_expired` event
 * naming it, otherwise a `bot_account_kept` one saying how much evidence there is. Both in the
 * transaction of the status change, under the account's row lock, so two such endings at once
 * count each other; their webhook hears them too.
 */
export async function expireAccountOnSignInExpired(
  trx: Db,
  change: MeetingStatusChanged,
  events: MeetingEvents,
): Promise<void> {
  if (change.to !== 'failed' || change.reason !== 'sign_in_expired') return;
  if (!trx.isTransaction)
    return trx.transaction((inner) => expireAccountOnSignInExpired(inner, change, events));
  const accountId = await botAccountIdOfMeeting(trx, change.meetingId);
  if (accountId === undefined) return;
  // Checked above: trx is a transaction, so the lock holds until it commits.
  if (!(await lockBotAccount(trx as Knex.Transaction, accountId))) return;
  const account = await findBotAccount(trx, accountId);
  if (account?.status !== 'active') return;
  const evidence = await signInEvidenceOfAccount(trx, accountId);
  const needed = expiryUsers;
  const enough = evidence.users >= needed && evidence.meetings >= needed;
  const seen = `signed-in bots of ${evidence.users} user(s) met a sign-in screen with it in ${evidence.meetings} meeting(s) within ${SIGN_IN_EVIDENCE_HOURS} h`;
  if (!enough) {
    await recordStatusChange(trx, events, {
      meetingId: change.meetingId,
      from: 'failed',
      to: 'failed',
      source: 'worker',
      reason: BotAccountReasons.kept,
      detail: `bot account ${account.id} (${account.platform}, "${account.displayName}") stays in the pool: ${seen}, and ${needed} different users' meetings (BOT_ACCOUNT_EXPIRY_USERS) are needed to mark it expired; one meeting may ask for sign-in because it wants another account`,
    });
    return;
  }
  const expired = await expireBotAccountOfMeeting(trx, change.meetingId, 'sign_in_expired');
  if (!expired) return;
  await recordStatusChange(trx, events, {
    meetingId: change.meetingId,
    from: 'failed',
    to: 'failed',
    source: 'worker',
    reason: BotAccountReasons.expired,
    detail: `bot account ${expired.id} (${expired.platform}, "${expired.displayName}") marked expired: ${seen}; it is out of the pool until its session is replaced (PATCH /admin/bot-accounts/${expired.id})`,
  });
}
