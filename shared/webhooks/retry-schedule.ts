import type { Config } from '../infra/config.js';

export type RetrySettings = Pick<
  Config,
  'WEBHOOK_RETRY_BASE_MS' | 'WEBHOOK_RETRY_MAX_DELAY_MS' | 'WEBHOOK_RETRY_WINDOW_SECONDS'
>;

/**
 * Exponential backoff: the first retry waits the base delay, each next one twice as long, capped;
 * up to a tenth is added at random so endpoints coming back up aren't hit by every sender at once.
 */
export function retryDelayMs(attemptsMade: number, settings: RetrySettings, random = Math.random): number {
  const exponent = Math.max(0, attemptsMade - 1);
  const delay = Math.min(
    settings.WEBHOOK_RETRY_BASE_MS * 2 ** Math.min(exponent, 40),
    settings.WEBHOOK_RETRY_MAX_DELAY_MS,
  );
  return Math.round(delay * (1 + random() * 0.1));
}

/** Whether the next retry would fall outside the delivery's retry window (then it is given up). */
export function isLastAttempt(
  windowStartedAt: Date,
  nextDelayMs: number,
  settings: RetrySettings,
  now = Date.now(),
): boolean {
  return now + nextDelayMs > windowStartedAt.getTime() + settings.WEBHOOK_RETRY_WINDOW_SECONDS * 1000;
}
