import { describe, expect, it } from 'vitest';
import { BOT_STATES, canAskToJoin, canTransition, isWaitingOrIn } from '../../../simulator/bot-state.js';

describe('bot states', () => {
  it('lets a bot be admitted, denied or time out only from the lobby', () => {
    expect(canTransition('lobby', 'in_call')).toBe(true);
    expect(canTransition('lobby', 'denied')).toBe(true);
    expect(canTransition('prejoin', 'denied')).toBe(false);
    expect(canTransition('in_call', 'denied')).toBe(false);
  });

  it('removes only a bot that is in the call', () => {
    expect(canTransition('in_call', 'removed')).toBe(true);
    expect(canTransition('admitted', 'removed')).toBe(true);
    expect(canTransition('lobby', 'removed')).toBe(false);
  });

  it('treats an ended meeting and a blocked join as final', () => {
    expect(BOT_STATES.filter((state) => canTransition('ended', state))).toEqual([]);
    expect(BOT_STATES.filter((state) => canTransition('blocked', state))).toEqual([]);
  });

  it('lets a bot ask again after being refused, removed or leaving, but not while waiting or in', () => {
    for (const state of ['prejoin', 'denied', 'timed_out', 'removed', 'left'] as const)
      expect(canAskToJoin(state)).toBe(true);
    for (const state of ['lobby', 'admitted', 'in_call', 'ended', 'none'] as const)
      expect(canAskToJoin(state)).toBe(false);
  });

  it('counts lobby, dialog and call as places a closed page leaves', () => {
    expect(BOT_STATES.filter(isWaitingOrIn)).toEqual(['lobby', 'admitted', 'in_call']);
  });
});
