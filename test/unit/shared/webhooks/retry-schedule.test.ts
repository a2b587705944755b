import { describe, expect, it } from 'vitest';
import { isLastAttempt, retryDelayMs } from '../../../../shared/webhooks/retry-schedule.js';

const defaults = {
  WEBHOOK_RETRY_BASE_MS: 10_000,
  WEBHOOK_RETRY_MAX_DELAY_MS: 3_600_000,
  WEBHOOK_RETRY_WINDOW_SECONDS: 86_400,
};
const noJitter = () => 0;

describe('webhook retry schedule', () => {
  it('doubles from the base delay and stops growing at the cap', () => {
    const delays = [1, 2, 3, 4, 5, 10, 20].map((attempt) => retryDelayMs(attempt, defaults, noJitter));
    expect(delays).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 3_600_000, 3_600_000]);
  });

  it('adds at most a tenth of jitter', () => {
    expect(retryDelayMs(1, defaults, () => 0.999)).toBeLessThanOrEqual(11_000);
    expect(retryDelayMs(1, defaults, () => 0.5)).toBe(10_500);
  });

  it('gives up once the next retry would fall outside the 24 h window', () => {
    const opened = new Date('2026-11-22T00:00:00Z');
    const hour = 3_600_000;
    expect(isLastAttempt(opened, hour, defaults, opened.getTime() + 22 * hour)).toBe(false);
    expect(isLastAttempt(opened, hour, defaults, opened.getTime() + 23.5 * hour)).toBe(true);
  });

  it('retries about 30 times over the default day', () => {
    let elapsed = 0;
    let attempts = 1;
    const opened = new Date(0);
    while (!isLastAttempt(opened, retryDelayMs(attempts, defaults, noJitter), defaults, elapsed)) {
      elapsed += retryDelayMs(attempts, defaults, noJitter);
      attempts += 1;
    }
    expect(attempts).toBeGreaterThan(25);
    expect(attempts).toBeLessThan(35);
    expect(elapsed).toBeGreaterThan(23 * 3_600_000);
  });
});
