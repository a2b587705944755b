import { describe, expect, it } from 'vitest';
import { checkJoinAt } from '../../../../shared/bots/schedule.js';

const settings = { horizonDays: 7, clockSkewSeconds: 30 };
const now = Date.parse('2026-11-26T10:00:00Z');

describe('checkJoinAt', () => {
  it('takes a time in the future within the horizon, as given', () => {
    const joinAt = new Date('2026-11-27T09:30:00+01:00');
    expect(checkJoinAt(joinAt, settings, now)).toBe(joinAt);
    const lastDay = new Date(now + 7 * 86_400_000);
    expect(checkJoinAt(lastDay, settings, now)).toBe(lastDay);
  });

  it('takes a time at most the clock skew in the past, and refuses an earlier one', () => {
    expect(checkJoinAt(new Date(now - 30_000), settings, now).getTime()).toBe(now - 30_000);
    expect(() => checkJoinAt(new Date(now - 30_001), settings, now)).toThrow(
      'join_at: must be in the future',
    );
  });

  it('refuses a time beyond the horizon, naming it', () => {
    expect(() => checkJoinAt(new Date(now + 7 * 86_400_000 + 1), settings, now)).toThrow(
      'join_at: must be at most 7 days ahead',
    );
  });

  it('refuses an invalid date', () => {
    expect(() => checkJoinAt(new Date('nonsense'), settings, now)).toThrow(
      'join_at: must be a valid date-time',
    );
  });
});
