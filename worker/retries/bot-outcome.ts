import type { Counter } from 'prom-client';
import { hasActiveBotAccount } from '../../shared/accounts/bot-accounts-store.js';
import type { BotJobs } from '../../shared/bots/jobs.js';
import { isTerminal } from '../../shared/contract/meeting-status.js';
import type { Config } from '../../shared/infra/config.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { releaseForRetry } from '../../shared/meetings/launch-store.js';
import { findMeetingById, type MeetingRecord } from '../../shared/meetings/store.js';
import { recordStatusChange, transitionMeeting } from '../../shared/meetings/transitions.js';
import { domainEvents } from '../events/domain-events.js';
import { decideJoinRetry, type JoinRetrySettings, totalAttempts } from './join-retry-policy.js';

/** What applying a bot's end needs: retries happen only when `retry` is given. */
export interface BotOutcomeDeps {
  db: Knex;
  log: Logger;
  retry?:
    | {
        settings: JoinRetrySettings;
        jobs: Pick<BotJobs, 'launch'>;
        /** An anonymous bot refused for sign-in comes back signed in (BOT_ACCOUNT_FALLBACK with a key). */
        accountFallback?: boolean;
        /** Counts the launches queued again, by platform, reason and kind (`retry`, `account_fallback`). */
        counter?: Pick<Counter, 'inc'> | undefined;
      }
    | undefined;
}

export interface BotEnd {
  status: 'completed' | 'failed';
  reason: string;
  detail: string | null;
  /** Who saw it: `bot` for its own final event. */
  source: string;
}

export type BotEndApplied = 'ended' | 'retrying' | 'ignored';

/**
 * The bot's final event says it stopped because its process got SIGTERM (bot/main.ts): not its own
 * end. The worker sends one only to a bot whose meeting ended; another comes from whoever stopped it.
 */
export function isSignalledStop(end: { status: string; reason?: string; detail?: string | null }): boolean {
  return end.status === 'completed' && end.reason === 'stopped' && end.detail === 'SIGTERM';
}

/**
 * Applies the end a bot reported for its launch session `sessionId`: the meeting completes or fails
 * with the bot's reason, unless the reason is one a retry can help (worker/retries/join-retry-policy.ts) and
 * attempts remain; then the meeting keeps its status, the attempt is recorded on its events (its
 * number and reason, status unchanged) and the next launch is queued as a delayed job for when the
 * backoff is over. Both readers of a bot's final event (the ingester and the exit handler) come here:
 * under the meeting's row lock, only the first one for the session does anything.
 */
export async function applyBotEnd(
  deps: BotOutcomeDeps,
  meetingId: number,
  sessionId: string,
  end: BotEnd,
): Promise<BotEndApplied> {
  const outcome = await deps.db.transaction(async (trx) => {
    // NO KEY UPDATE, as for every lock on a meeting's row (moveMeetingStatus says why).
    await trx('meetings').where({ id: meetingId }).forNoKeyUpdate().first('id');
    const meeting = await findMeetingById(trx, meetingId);
    if (!meeting || isTerminal(meeting.status) || meeting.launchSessionId !== sessionId) {
      return { applied: 'ignored' as const };
    }
    if (end.status === 'failed' && (await fallsBackToAccount(deps, trx, meeting, end))) {
      const released = await releaseForRetry(trx, meetingId, sessionId, new Date(), { signIn: true });
      if (!released) return { applied: 'ignored' as const };
      await recordStatusChange(trx, domainEvents, {
        meetingId,
        from: meeting.status,
        to: meeting.status,
        source: end.source,
        reason: end.reason,
        detail: `${end.detail || 'the meeting wants a signed-in account'}; launching again now as a signed-in bot (BOT_ACCOUNT_FALLBACK)`,
      });
      return { applied: 'retrying' as const, meeting: released, dueAt: new Date(), kind: 'account_fallback' };
    }
    const settings = deps.retry?.settings;
    const decision =
      end.status === 'failed' && settings ? decideJoinRetry(end.reason, meeting.joinRetries, settings) : null;
    const attempts = settings ? totalAttempts(settings) : 1;
    if (decision?.retry) {
      const dueAt = new Date(Date.now() + decision.delaySeconds * 1000);
      const released = await releaseForRetry(trx, meetingId, sessionId, dueAt);
      if (!released) return { applied: 'ignored' as const };
      await recordStatusChange(trx, domainEvents, {
        meetingId,
        from: meeting.status,
        to: meeting.status,
        source: end.source,
        reason: end.reason,
        detail: `attempt ${decision.attempt} of ${attempts}: ${end.detail || end.reason}; attempt ${decision.nextAttempt} in ${decision.delaySeconds} s`,
      });
      return { applied: 'retrying' as const, meeting: released, dueAt, kind: 'retry' };
    }
    const counted =
      end.status === 'failed' &&
      decision !== null &&
      (meeting.joinRetries > 0 || decision.why === 'exhausted');
    const moved = await transitionMeeting(trx, domainEvents, meetingId, {
      to: end.status,
      source: end.source,
      reason: end.reason,
      detail: counted
        ? `attempt ${meeting.joinRetries + 1} of ${attempts}: ${end.detail || end.reason}`
        : end.detail,
    });
    return { applied: moved ? ('ended' as const) : ('ignored' as const) };
  });
  if (outcome.applied === 'retrying') {
    deps.retry?.counter?.inc({ platform: outcome.meeting.platform, reason: end.reason, kind: outcome.kind });
    await queueRetry(deps, outcome.meeting, outcome.dueAt);
  }
  return outcome.applied;
}

/**
 * Whether an anonymous bot's end is a sign-in refusal the operator lets fall back to a bot account
 * (BOT_ACCOUNT_FALLBACK), and the platform has an active one. A signed-in bot never falls back: its
 * sign-in screen is `sign_in_expired`.
 */
async function fallsBackToAccount(
  deps: BotOutcomeDeps,
  trx: Knex.Transaction,
  meeting: MeetingRecord,
  end: BotEnd,
): Promise<boolean> {
  if (!deps.retry?.accountFallback || meeting.authenticated || end.reason !== 'sign_in_required')
    return false;
  return hasActiveBotAccount(trx, meeting.platform);
}

/** The worker's retry settings and queue, when it can queue launches (every worker process does). */
export function joinRetryOf(deps: {
  config: Pick<
    Config,
    'BOT_RETRY_ATTEMPTS' | 'BOT_RETRY_BACKOFF_SECONDS' | 'BOT_ACCOUNT_FALLBACK' | 'BOT_ACCOUNT_KEY'
  >;
  jobs?: Pick<BotJobs, 'launch'> | undefined;
  metrics?: { joinRetries?: Pick<Counter, 'inc'> } | undefined;
}): BotOutcomeDeps['retry'] {
  if (!deps.jobs) return undefined;
  return {
    settings: {
      attempts: deps.config.BOT_RETRY_ATTEMPTS,
      backoffSeconds: deps.config.BOT_RETRY_BACKOFF_SECONDS,
    },
    jobs: deps.jobs,
    accountFallback: deps.config.BOT_ACCOUNT_FALLBACK && deps.config.BOT_ACCOUNT_KEY !== undefined,
    counter: deps.metrics?.joinRetries,
  };
}

/**
 * The delayed launch of a pending retry; its job id names the retry, so queueing it again (the
 * reconciler does when this one could not reach Redis) changes nothing.
 */
export async function queueRetry(deps: BotOutcomeDeps, meeting: MeetingRecord, dueAt: Date): Promise<void> {
  try {
    await deps.retry?.jobs.launch({
      meetingId: meeting.id,
      userId: meeting.userId,
      platform: meeting.platform,
      nativeMeetingId: meeting.nativeMeetingId,
      retry: meeting.joinRetries,
      retryAt: dueAt.getTime(),
    });
    deps.log.info(
      { meetingId: meeting.id, retry: meeting.joinRetries, dueAt: dueAt.toISOString() },
      'bot refused; its retry is queued',
    );
  } catch (error) {
    deps.log.warn(
      { err: error, meetingId: meeting.id },
      'could not queue the retry yet; the reconciler will',
    );
  }
}
