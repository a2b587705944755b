import { expireBotAccountOfMeeting } from '../shared/accounts/bot-accounts-store.js';
import { BotAccountReasons } from '../shared/contract/events.js';
import type { Db } from '../shared/infra/knex.js';
import type { MeetingEvents, MeetingStatusChanged } from '../shared/meetings/events.js';
import { recordStatusChange } from '../shared/meetings/transitions.js';

/**
 * A signed-in bot ended with `sign_in_expired`: its account's session no longer signs in. In the
 * transaction of that status change, the account is marked `expired` (out of the pool) and the
 * meeting's history gets a `bot_account_expired` event naming it, which its webhook hears too.
 */
export async function expireAccountOnSignInExpired(
  trx: Db,
  change: MeetingStatusChanged,
  events: MeetingEvents,
): Promise<void> {
  if (change.to !== 'failed' || change.reason !== 'sign_in_expired') return;
  const account = await expireBotAccountOfMeeting(trx, change.meetingId, 'sign_in_expired');
  if (!account) return;
  await recordStatusChange(trx, events, {
    meetingId: change.meetingId,
    from: 'failed',
    to: 'failed',
    source: 'worker',
    reason: BotAccountReasons.expired,
    detail: `bot account ${account.id} (${account.platform}, "${account.displayName}") marked expired: its session met a sign-in screen; it is out of the pool until its session is replaced (PATCH /admin/bot-accounts/${account.id})`,
  });
}
