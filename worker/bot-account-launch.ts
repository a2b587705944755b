import { BOT_ACCOUNT_KEY_MISSING, BotAccountSessions } from '../shared/accounts/bot-account-sessions.js';
import {
  findBotAccountOfMeeting,
  type TakenBotAccount,
  takeBotAccount,
} from '../shared/accounts/bot-accounts-store.js';
import { BotAccountReasons } from '../shared/contract/events.js';
import type { StorageState } from '../shared/contract/storage-state.js';
import type { MeetingRecord } from '../shared/meetings/store.js';
import type { LaunchAccount } from './runtime/bot-launch-spec.js';
import type { WorkerDeps } from './worker-deps.js';

export type AccountForLaunch =
  | { anonymous: true }
  | { account: LaunchAccount }
  /** The meeting is to fail with this reason and detail. */
  | { failed: { reason: string; detail: string } }
  /** The meeting ended meanwhile: nothing to launch. */
  | { gone: true };

/**
 * The bot account a claimed launch signs in with: none for an anonymous bot; for a signed-in one an
 * active account of the platform with room (race-free, shared/accounts/bot-accounts-store.ts), or,
 * for a relaunch after a lost host, the account the meeting already had. The session is opened here,
 * in the worker, and goes to the bot in a file (worker/runtime/bot-launch-spec.ts).
 */
export async function botAccountForLaunch(
  deps: Pick<WorkerDeps, 'db' | 'config'>,
  meeting: MeetingRecord,
): Promise<AccountForLaunch> {
  if (!meeting.authenticated) return { anonymous: true };
  const sessions = new BotAccountSessions(deps.config.BOT_ACCOUNT_KEY);
  if (!sessions.configured) {
    return {
      failed: {
        reason: BotAccountReasons.noneAvailable,
        detail: `${BOT_ACCOUNT_KEY_MISSING} (this worker has none)`,
      },
    };
  }
  let taken: TakenBotAccount | undefined =
    meeting.botAccountId === null ? undefined : await findBotAccountOfMeeting(deps.db, meeting.id);
  if (!taken) {
    const outcome = await takeBotAccount(deps.db, {
      meetingId: meeting.id,
      platform: meeting.platform,
      maxBots: deps.config.BOT_ACCOUNT_MAX_BOTS,
    });
    if ('meetingGone' in outcome) return { gone: true };
    if ('none' in outcome) {
      const detail =
        outcome.none.active === 0
          ? `no active bot account for ${meeting.platform} (POST /admin/bot-accounts registers one)`
          : `all ${outcome.none.active} active bot account(s) for ${meeting.platform} already have BOT_ACCOUNT_MAX_BOTS (${deps.config.BOT_ACCOUNT_MAX_BOTS}) bot(s)`;
      return { failed: { reason: BotAccountReasons.noneAvailable, detail } };
    }
    taken = outcome.taken;
  }
  let storageState: StorageState;
  try {
    storageState = sessions.open(taken.sealedStorageState);
  } catch {
    return {
      failed: {
        reason: 'launch_failed',
        detail: `the session of bot account ${taken.account.id} does not open with this worker's BOT_ACCOUNT_KEY (another key?)`,
      },
    };
  }
  return { account: { id: taken.account.id, displayName: taken.account.displayName, storageState } };
}
