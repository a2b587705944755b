import { describe, expect, it } from 'vitest';
import { SpeechActivity } from '../../../../bot/participants/speech-activity.js';
import type { SpeakingSignal } from '../../../../bot/speakers/signals.js';

const HOLD = 1500;
const activity = () => new SpeechActivity({ holdMs: HOLD, maxTracked: 100 }, () => 'Notetaker');
const change = (name: string, speaking: boolean, signal: SpeakingSignal = 'audio_level') => ({
  signal,
  name,
  speaking,
  at: 0,
});

describe('SpeechActivity', () => {
  it('reports a start once the indicator held, at its onset, and a stop once it stayed off, at when it went off', () => {
    const s = activity();
    s.record(change('Alice', true), 10_000);
    expect(s.settle(11_000)).toEqual([]);
    expect(s.settle(11_600)).toEqual([{ type: 'participant.speech_started', name: 'Alice', at: 10_000 }]);
    s.record(change('Alice', false), 14_000);
    expect(s.settle(15_000)).toEqual([]);
    expect(s.settle(15_600)).toEqual([{ type: 'participant.speech_stopped', name: 'Alice', at: 14_000 }]);
    expect(s.settle(30_000)).toEqual([]);
  });

  it('merges a flickering indicator into one stretch', () => {
    const s = activity();
    const events = [];
    let at = 0;
    for (let i = 0; i < 40; i += 1) {
      s.record(change('Bob', true), at);
      at += 300;
      events.push(...s.settle(at));
      s.record(change('Bob', false), at);
      at += 400;
      events.push(...s.settle(at));
    }
    events.push(...s.settle(at + 5000));
    expect(events).toEqual([
      { type: 'participant.speech_started', name: 'Bob', at: 0 },
      { type: 'participant.speech_stopped', name: 'Bob', at: at - 400 },
    ]);
  });

  it('reports nothing for a blip shorter than the hold', () => {
    const s = activity();
    s.record(change('Carol', true), 1000);
    s.record(change('Carol', false), 1400);
    expect(s.settle(2000)).toEqual([]);
    expect(s.settle(5000)).toEqual([]);
  });

  it('counts a person speaking while any page signal says so, and ignores WebRTC sources and the bot', () => {
    const s = activity();
    s.record(change('Dan', true, 'audio_level'), 0);
    s.record(change('Dan', true, 'people_panel'), 200);
    s.record(change('Dan', false, 'audio_level'), 2000);
    expect(s.settle(4000)).toEqual([{ type: 'participant.speech_started', name: 'Dan', at: 0 }]);
    s.record(change('Dan', false, 'people_panel'), 5000);
    s.record(change('source:1', true, 'webrtc'), 0);
    s.record(change('Notetaker', true), 0);
    expect(s.settle(7000)).toEqual([{ type: 'participant.speech_stopped', name: 'Dan', at: 5000 }]);
  });

  it('closes a stretch that ended between looks when the person speaks again, and ends all on stopAll', () => {
    const s = activity();
    s.record(change('Eve', true), 0);
    s.record(change('Eve', false), 2000);
    expect(s.record(change('Eve', true), 6000)).toEqual([
      { type: 'participant.speech_started', name: 'Eve', at: 0 },
      { type: 'participant.speech_stopped', name: 'Eve', at: 2000 },
    ]);
    expect(s.settle(8000)).toEqual([{ type: 'participant.speech_started', name: 'Eve', at: 6000 }]);
    expect(s.stopAll(9000)).toEqual([{ type: 'participant.speech_stopped', name: 'Eve', at: 9000 }]);
    expect(s.stopAll(9500)).toEqual([]);
  });
});
