import { describe, expect, it } from 'vitest';
import { AttemptError, withRetries } from '../../../bot/engines/openai/retry.js';

const fast = { backoffBaseMs: 1, backoffMaxMs: 5 };

describe('withRetries', () => {
  it('retries retryable failures until one succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withRetries(
      async () => {
        calls++;
        if (calls < 3) throw new AttemptError('503', true);
        return 'ok';
      },
      { ...fast, retries: 5, onRetry: (_error, attempt) => waits.push(attempt) },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
    expect(waits).toEqual([1, 2]);
  });

  it('stops at the first non-retryable failure', async () => {
    let calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw new AttemptError('400', false);
        },
        { ...fast, retries: 5 },
      ),
    ).rejects.toThrow('400');
    expect(calls).toBe(1);
  });

  it('gives up after the allowed retries with the last error', async () => {
    let calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw new AttemptError(`attempt ${calls}`, true);
        },
        { ...fast, retries: 2 },
      ),
    ).rejects.toThrow('attempt 3');
    expect(calls).toBe(3);
  });

  it('backs off exponentially, within the cap, honouring Retry-After', async () => {
    const waits: number[] = [];
    await withRetries(
      async (index) => {
        if (index < 4) throw new AttemptError('busy', true, index === 3 ? 50 : null);
        return null;
      },
      {
        backoffBaseMs: 2,
        backoffMaxMs: 200,
        retries: 4,
        onRetry: (_error, _attempt, waitMs) => waits.push(waitMs),
      },
    );
    // Jitter keeps each wait within [half, full] of 2, 4, 8, 16 ms; Retry-After raises the fourth to 50.
    expect(waits[0]).toBeGreaterThanOrEqual(1);
    expect(waits[0]).toBeLessThanOrEqual(2);
    expect(waits[2]).toBeGreaterThanOrEqual(4);
    expect(waits[2]).toBeLessThanOrEqual(8);
    expect(waits[3]).toBe(50);
  });

  it('never waits longer than the cap', async () => {
    const waits: number[] = [];
    await withRetries(
      async (index) => {
        if (index < 3) throw new AttemptError('busy', true, 60_000);
        return null;
      },
      {
        backoffBaseMs: 1,
        backoffMaxMs: 5,
        retries: 3,
        onRetry: (_error, _attempt, waitMs) => waits.push(waitMs),
      },
    );
    expect(waits).toEqual([5, 5, 5]);
  });
});
