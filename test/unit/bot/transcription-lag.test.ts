import { describe, expect, it } from 'vitest';
import { LagMonitor, lagParts } from '../../../bot/session/transcription-lag.js';

describe('lagParts', () => {
  const now = Date.parse('2026-11-23T10:00:00.000Z');

  it('tells audio the page has not delivered yet from what the engine has not processed', () => {
    expect(lagParts({ heardUntil: now - 4000, engineBacklogSeconds: 6, now })).toEqual({
      undeliveredSeconds: 4,
      engineBacklogSeconds: 6,
    });
  });

  it('has nothing undelivered before any audio, and no part is ever negative', () => {
    expect(lagParts({ heardUntil: null, engineBacklogSeconds: 0, now })).toEqual({
      undeliveredSeconds: 0,
      engineBacklogSeconds: 0,
    });
    expect(lagParts({ heardUntil: now + 200, engineBacklogSeconds: -1, now })).toEqual({
      undeliveredSeconds: 0,
      engineBacklogSeconds: 0,
    });
  });
});

describe('LagMonitor', () => {
  it('reports falling behind once, and catching up once, with a gap between the thresholds', () => {
    const monitor = new LagMonitor({ reportSeconds: 10, recoveredSeconds: 3 });
    const transitions = [1, 9.9, 10, 25, 12, 4, 3, 11, 2].map((lag) => monitor.observe(lag)?.kind ?? null);
    expect(transitions).toEqual([
      null,
      null,
      'lagging',
      null,
      null,
      null,
      'caught_up',
      'lagging',
      'caught_up',
    ]);
  });

  it('remembers the worst lag of the current episode and the last reading', () => {
    const monitor = new LagMonitor({ reportSeconds: 5, recoveredSeconds: 1 });
    for (const lag of [6, 30, 8]) monitor.observe(lag);
    expect(monitor.isLagging).toBe(true);
    expect(monitor.worstSeconds).toBe(30);
    expect(monitor.lagSeconds).toBe(8);
  });

  it('refuses thresholds that would never let a bot catch up', () => {
    expect(() => new LagMonitor({ reportSeconds: 2, recoveredSeconds: 5 })).toThrow(/recovered threshold/);
  });
});
