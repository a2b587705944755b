import { describe, expect, it } from 'vitest';
import { LeaveTimers } from '../../../bot/session/leave-timers.js';
import { automaticLeaveConfig } from '../../../shared/contract/bot-config.js';

const config = automaticLeaveConfig.parse({
  nobodyJoinedSeconds: 60,
  aloneSeconds: 30,
  silenceSeconds: 120,
  maxDurationSeconds: 600,
});
const s = (seconds: number) => seconds * 1000;

describe('LeaveTimers', () => {
  it('leaves when nobody ever joined', () => {
    const timers = new LeaveTimers(config, 0);
    timers.observeOthers(0, s(10));
    expect(timers.due(s(59))).toBeNull();
    expect(timers.due(s(60))).toBe('nobody_joined');
  });

  it('does not count "nobody joined" once someone was seen', () => {
    const timers = new LeaveTimers(config, 0);
    timers.observeOthers(2, s(1));
    timers.observeSpeech(s(50));
    expect(timers.due(s(100))).toBeNull();
  });

  it('leaves when everyone left and stayed away', () => {
    const timers = new LeaveTimers(config, 0);
    timers.observeOthers(1, s(1));
    timers.observeOthers(0, s(20));
    timers.observeOthers(0, s(30));
    expect(timers.due(s(49))).toBeNull();
    expect(timers.due(s(50))).toBe('left_alone');
  });

  it('resets the alone timer when someone comes back', () => {
    const timers = new LeaveTimers(config, 0);
    timers.observeOthers(1, s(1));
    timers.observeOthers(0, s(20));
    timers.observeOthers(1, s(40));
    timers.observeSpeech(s(45));
    expect(timers.due(s(55))).toBeNull();
    timers.observeOthers(0, s(60));
    expect(timers.due(s(89))).toBeNull();
    expect(timers.due(s(90))).toBe('left_alone');
  });

  it('ignores observations without a count', () => {
    const timers = new LeaveTimers(config, 0);
    timers.observeOthers(1, s(1));
    timers.observeOthers(null, s(5));
    expect(timers.due(s(50))).toBeNull();
  });

  it('leaves after a long silence, counted from the last speech', () => {
    const timers = new LeaveTimers(config, 0);
    timers.observeOthers(1, s(1));
    timers.observeSpeech(s(100));
    expect(timers.due(s(219))).toBeNull();
    expect(timers.due(s(220))).toBe('silence');
  });

  it('caps the time in the call, whatever else happens', () => {
    const timers = new LeaveTimers(config, s(5));
    timers.observeOthers(3, s(6));
    for (let t = 10; t < 700; t += 10) timers.observeSpeech(s(t));
    expect(timers.due(s(604))).toBeNull();
    expect(timers.due(s(605))).toBe('max_duration');
  });
});
