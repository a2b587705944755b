import type { FailedReason } from '../../shared/contract/events.js';

/**
 * Which refusals are worth another launch, and when. A retry can help only where the next attempt
 * may see something else: Meet's "You can't join this video call" for a suspected bot often lets
 * the next browser in, and a page that did not load may load next time. It cannot help where the
 * answer is about the meeting or the bot's identity and stays the same: a meeting that wants a
 * signed-in account (sign_in_required), one that does not exist (meeting_not_found), a host who said
 * no (admission_denied: asking again would pester the host), or a challenge only a person can solve
 * (verification_required: a new browser gets the same challenge, and hammering it invites a harder
 * block).
 */
export const RETRYABLE_REASONS: readonly FailedReason[] = ['blocked_by_platform', 'meeting_unreachable'];

/** The longest wait between two attempts, whatever the base. */
export const MAX_RETRY_DELAY_SECONDS = 900;

export interface JoinRetrySettings {
  /** How many times a refused bot is launched again (BOT_RETRY_ATTEMPTS). */
  attempts: number;
  /** The wait before the first retry (BOT_RETRY_BACKOFF_SECONDS); each further one doubles it. */
  backoffSeconds: number;
}

export type JoinRetryDecision =
  | {
      retry: true;
      /** The attempt that ended (1 = the first launch). */
      attempt: number;
      /** The attempt about to be launched. */
      nextAttempt: number;
      delaySeconds: number;
    }
  | { retry: false; attempt: number; why: 'not_retryable' | 'exhausted' };

export function isRetryableReason(reason: string): boolean {
  return (RETRYABLE_REASONS as readonly string[]).includes(reason);
}

/** The wait before retry number `retry` (1 = the first): base, 2×base, 4×base…, at most 15 min. */
export function retryDelaySeconds(retry: number, backoffSeconds: number): number {
  return Math.min(backoffSeconds * 2 ** Math.max(0, retry - 1), MAX_RETRY_DELAY_SECONDS);
}

/** How many attempts a meeting gets in all: the first launch and its retries. */
export function totalAttempts(settings: JoinRetrySettings): number {
  return settings.attempts + 1;
}

/** Whether a bot that failed with `reason`, after `retriesSoFar` retries, is launched again. */
export function decideJoinRetry(
  reason: string,
  retriesSoFar: number,
  settings: JoinRetrySettings,
): JoinRetryDecision {
  const attempt = retriesSoFar + 1;
  if (!isRetryableReason(reason)) return { retry: false, attempt, why: 'not_retryable' };
  if (retriesSoFar >= settings.attempts) return { retry: false, attempt, why: 'exhausted' };
  return {
    retry: true,
    attempt,
    nextAttempt: attempt + 1,
    delaySeconds: retryDelaySeconds(attempt, settings.backoffSeconds),
  };
}
