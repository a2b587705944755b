import { sleep } from '../../../shared/infra/async.js';
/** Whether a failed attempt is worth repeating. */
export class AttemptError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** Server-requested wait (Retry-After), if any. */
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'AttemptError';
  }
}

export interface RetryOptions {
  /** Attempts after the first. */
  retries: number;
  /** First wait; doubles each time. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  signal?: AbortSignal;
  onRetry?(error: AttemptError, attempt: number, waitMs: number): void;
}

/**
 * Runs `attempt` until it succeeds, fails for good (a non-retryable AttemptError or any other
 * error) or runs out of retries; waits back off exponentially with jitter so bots don't retry in step.
 */
export async function withRetries<T>(
  attempt: (index: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  for (let index = 0; ; index++) {
    try {
      return await attempt(index);
    } catch (error) {
      if (!(error instanceof AttemptError) || !error.retryable || index >= options.retries) throw error;
      if (options.signal?.aborted) throw error;
      const exponential = Math.min(options.backoffMaxMs, options.backoffBaseMs * 2 ** index);
      const jittered = exponential * (0.5 + Math.random() / 2);
      const waitMs = Math.min(options.backoffMaxMs, Math.max(jittered, error.retryAfterMs ?? 0));
      options.onRetry?.(error, index + 1, waitMs);
      await sleep(waitMs, options.signal);
    }
  }
}
