import { describe, expect, it } from 'vitest';
import { FAILED_REASONS } from '../../../shared/contract/events.js';
import {
  decideJoinRetry,
  isRetryableReason,
  MAX_RETRY_DELAY_SECONDS,
  retryDelaySeconds,
  totalAttempts,
} from '../../../worker/retries/join-retry-policy.js';

const settings = { attempts: 2, backoffSeconds: 30 };

describe('join retry policy', () => {
  it('retries only the refusals a new attempt can change', () => {
    const retryable = FAILED_REASONS.filter((reason) => isRetryableReason(reason));
    expect(retryable).toEqual(['meeting_unreachable', 'blocked_by_platform']);
    for (const reason of [
      'sign_in_required',
      'meeting_not_found',
      'admission_denied',
      'verification_required',
      'admission_timeout',
      'blocked',
      'crashed',
    ]) {
      expect(decideJoinRetry(reason, 0, settings), reason).toEqual({
        retry: false,
        attempt: 1,
        why: 'not_retryable',
      });
    }
  });

  it('doubles the wait from the base for each further retry, up to 15 minutes', () => {
    expect([1, 2, 3, 4].map((retry) => retryDelaySeconds(retry, 30))).toEqual([30, 60, 120, 240]);
    expect(retryDelaySeconds(10, 30)).toBe(MAX_RETRY_DELAY_SECONDS);
    expect(retryDelaySeconds(1, 2)).toBe(2);
  });

  it('stops at the cap: BOT_RETRY_ATTEMPTS retries after the first launch', () => {
    expect(totalAttempts(settings)).toBe(3);
    expect(decideJoinRetry('blocked_by_platform', 0, settings)).toEqual({
      retry: true,
      attempt: 1,
      nextAttempt: 2,
      delaySeconds: 30,
    });
    expect(decideJoinRetry('meeting_unreachable', 1, settings)).toEqual({
      retry: true,
      attempt: 2,
      nextAttempt: 3,
      delaySeconds: 60,
    });
    expect(decideJoinRetry('blocked_by_platform', 2, settings)).toEqual({
      retry: false,
      attempt: 3,
      why: 'exhausted',
    });
  });

  it('never retries with BOT_RETRY_ATTEMPTS=0', () => {
    expect(decideJoinRetry('blocked_by_platform', 0, { attempts: 0, backoffSeconds: 30 })).toMatchObject({
      retry: false,
      why: 'exhausted',
    });
  });
});
