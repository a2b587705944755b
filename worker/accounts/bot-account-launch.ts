import { BOT_ACCOUNT_KEY_MISSING, BotAccountSessions } from '../../shared/accounts/bot-account-sessions.js';
import {
  findBotAccountOfMeeting,
  type TakenBotAccount,
  takeBotAccount,
} from '../../shared/accounts/bot-accounts-store.js';
import { BotAccountReasons } from '../../shared/contract/events.js';
import type { StorageState } from '../../shared/contract/storage-state.js';
import type { Config } from '../../shared/infra/config.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { UnknownSealingKeyError } from '../../shared/infra/sealing.js';
import type { MeetingRecord } from '../../shared/meetings/store.js';
import type { LaunchAccount } from '../runtime/bot-launch-spec.js';

/** What choosing a launch's bot account needs: the pool in Postgres, its keys and limits. */
export interface AccountLaunchDeps {
  db: Knex;
  config: Pick<
    Config,
    'BOT_ACCOUNT_KEY' | 'BOT_ACCOUNT_PREVIOUS_KEYS' | 'BOT_ACCOUNT_MAX_BOTS' | 'BOT_ACCOUNT_USER_SHARE'
  >;
  log: Logger;
}

export type AccountForLaunch =
  | { anonymous: true }
  | { account: LaunchAccount }
  /** The meeting is to fail with this reason and detail. */
  | { failed: { reason: string; detail: string } }
  /** The meeting ended meanwhile: nothing to launch. */
  | { gone: true };

/**
 * The bot account a claimed launch signs in with: none for an anonymous bot; for a signed-in one an
 * active account of the platform with room, within the user's share of the pool (race-free,
 * shared/accounts/bot-accounts-store.ts): a launch over the share fails as one finding no room does,
 * with `no_bot_account_available` and a detail saying which; or,
 * for a relaunch after a lost host, the account the meeting already had. The session is opened here,
 * in the worker, and goes to the bot in a file (worker/runtime/bot-launch-spec.ts).
 */
export async function botAccountForLaunch(
  deps: AccountLaunchDeps,
  meeting: MeetingRecord,
): Promise<AccountForLaunch> {
  if (!meeting.authenticated) return { anonymous: true };
  const sessions = new BotAccountSessions(deps.config.BOT_ACCOUNT_KEY, deps.config.BOT_ACCOUNT_PREVIOUS_KEYS);
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
      userId: meeting.userId,
      platform: meeting.platform,
      maxBots: deps.config.BOT_ACCOUNT_MAX_BOTS,
      userShare: deps.config.BOT_ACCOUNT_USER_SHARE,
    });
    if ('meetingGone' in outcome) return { gone: true };
    if ('overShare' in outcome) {
      const { held, allowed, pool } = outcome.overShare;
      const detail = `this user already has ${held} signed-in bot(s) on ${meeting.platform}, its share of the pool: ${allowed} of ${pool} place(s) (BOT_ACCOUNT_USER_SHARE ${deps.config.BOT_ACCOUNT_USER_SHARE}); one that ends frees a place`;
      return { failed: { reason: BotAccountReasons.noneAvailable, detail } };
    }
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
  } catch (error) {
    const detail = sessionFailureDetail(taken.account.id, sessions, error);
    deps.log.error({ botAccountId: taken.account.id, meetingId: meeting.id }, detail);
    return { failed: { reason: 'launch_failed', detail } };
  }
  return { account: { id: taken.account.id, displayName: taken.account.displayName, storageState } };
}

/**
 * Why a bot account's session does not open here, for the meeting's detail and the worker's log:
 * by key id when the session names a key this worker lacks (the API sealed it with a BOT_ACCOUNT_KEY
 * the worker doesn't have), never the keys themselves.
 */
function sessionFailureDetail(accountId: number, sessions: BotAccountSessions, error: unknown): string {
  const { current, previous } = sessions.keyIds;
  const ours = `this worker's BOT_ACCOUNT_KEY has key id ${current}${previous.length > 0 ? `, its BOT_ACCOUNT_PREVIOUS_KEYS ${previous.join(', ')}` : ''}`;
  if (error instanceof UnknownSealingKeyError) {
    return `bot account key mismatch: the session of bot account ${accountId} is sealed with key id ${error.keyId}, which this worker does not have (${ours}); set the same BOT_ACCOUNT_KEY on the API and every worker, or add the key to BOT_ACCOUNT_PREVIOUS_KEYS`;
  }
  return `the session of bot account ${accountId} does not open with this worker's keys (${ours}): ${(error as Error).message}`;
}
