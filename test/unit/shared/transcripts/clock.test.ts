import { describe, expect, it } from 'vitest';
import { clockTime, toMilliseconds } from '../../../../shared/transcripts/clock.js';

describe('toMilliseconds', () => {
  it.each([
    [0, 0],
    [1.5, 1500],
    [62.0004, 62_000],
    [62.0005, 62_001],
    [59.9996, 60_000],
    [0.1 + 0.2, 300],
    [86_399.9999, 86_400_000],
  ])('%d s is %d ms', (seconds, milliseconds) => {
    expect(toMilliseconds(seconds)).toBe(milliseconds);
  });

  it.each([-0.5, -0, Number.NaN, Number.POSITIVE_INFINITY])('%d s is 0', (seconds) => {
    expect(toMilliseconds(seconds)).toBe(0);
  });
});

describe('toMilliseconds past the longest time a segment may carry', () => {
  it.each([604_800.5, 1e9, 1e300, Number.MAX_VALUE])('%d s prints as the bound, 7 days', (seconds) => {
    expect(toMilliseconds(seconds)).toBe(604_800_000);
    expect(clockTime(toMilliseconds(seconds), ',')).toBe('168:00:00,000');
  });
});

describe('clockTime', () => {
  it('writes hours, minutes, seconds and milliseconds with the separator asked for', () => {
    expect(clockTime(3_723_004, ',')).toBe('01:02:03,004');
    expect(clockTime(3_723_004, '.')).toBe('01:02:03.004');
    expect(clockTime(3_723_999)).toBe('01:02:03');
    expect(clockTime(0, '.')).toBe('00:00:00.000');
  });

  it('never shows 1000 milliseconds or 60 seconds when the time was rounded up', () => {
    expect(clockTime(toMilliseconds(59.9996), ',')).toBe('00:01:00,000');
    expect(clockTime(toMilliseconds(3599.99999), '.')).toBe('01:00:00.000');
    expect(clockTime(toMilliseconds(1.9994), ',')).toBe('00:00:01,999');
  });

  it('keeps counting hours past a day and past 99', () => {
    expect(clockTime(toMilliseconds(90_000.25), '.')).toBe('25:00:00.250');
    expect(clockTime(toMilliseconds(360_000), ',')).toBe('100:00:00,000');
    expect(clockTime(toMilliseconds(24 * 3600 - 0.001))).toBe('23:59:59');
  });
});
