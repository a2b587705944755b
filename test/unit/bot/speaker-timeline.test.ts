import { describe, expect, it } from 'vitest';
import { normalizeSpeakerName, SpeakerTimeline } from '../../../bot/speakers/timeline.js';

function timeline(changes: [string, boolean, number][]): SpeakerTimeline {
  const result = new SpeakerTimeline({ toleranceSeconds: 0.3 });
  for (const [name, speaking, at] of changes) result.record({ name, speaking, at });
  return result;
}

describe('SpeakerTimeline', () => {
  it('gives a segment to the participant whose speaking overlaps it most', () => {
    const speakers = timeline([
      ['Alice', true, 1],
      ['Alice', false, 4],
      ['Bob', true, 3.5],
      ['Bob', false, 9],
    ]);
    expect(speakers.attribute(1.2, 3.9)).toBe('Alice');
    expect(speakers.attribute(4.1, 8.5)).toBe('Bob');
    // Straddles both: Bob's 4.6 s beat Alice's 1.3 s.
    expect(speakers.attribute(2.7, 7.0)).toBe('Bob');
  });

  it('returns null without speaking evidence instead of guessing', () => {
    const speakers = timeline([
      ['Alice', true, 1],
      ['Alice', false, 2],
    ]);
    expect(speakers.attribute(5, 7)).toBeNull();
    expect(new SpeakerTimeline().attribute(0, 10)).toBeNull();
  });

  it('widens the segment by the tolerance to absorb indicator lag', () => {
    const speakers = timeline([
      ['Alice', true, 2.2],
      ['Alice', false, 3],
    ]);
    expect(speakers.attribute(1, 2)).toBe('Alice');
    expect(speakers.attribute(0, 1.8)).toBeNull();
  });

  it('counts a speaker still talking up to the segment end', () => {
    const speakers = timeline([['Carol', true, 10]]);
    expect(speakers.attribute(10.5, 12)).toBe('Carol');
    expect(speakers.speakingNow()).toEqual(['Carol']);
  });

  it('sums several intervals of one speaker', () => {
    const speakers = timeline([
      ['Alice', true, 0],
      ['Alice', false, 1],
      ['Bob', true, 1],
      ['Bob', false, 2.5],
      ['Alice', true, 2.5],
      ['Alice', false, 3.5],
    ]);
    expect(speakers.attribute(0, 3.5)).toBe('Alice');
  });

  it('ignores repeated starts and stops without a start', () => {
    const speakers = timeline([
      ['Alice', false, 1],
      ['Alice', true, 2],
      ['Alice', true, 2.5],
      ['Alice', false, 3],
    ]);
    expect(speakers.attribute(2, 2.4)).toBe('Alice');
    expect(speakers.speakingNow()).toEqual([]);
  });

  it('merges a name with its guest suffix', () => {
    const speakers = timeline([
      ['Dana (Guest)', true, 0],
      ['Dana', false, 2],
    ]);
    expect(speakers.attribute(0.5, 1.5)).toBe('Dana');
  });

  it('forgets intervals beyond the retention window', () => {
    const speakers = new SpeakerTimeline({ retentionSeconds: 10 });
    speakers.record({ name: 'Alice', speaking: true, at: 0 });
    speakers.record({ name: 'Alice', speaking: false, at: 1 });
    speakers.record({ name: 'Bob', speaking: true, at: 30 });
    speakers.record({ name: 'Bob', speaking: false, at: 31 });
    expect(speakers.attribute(0, 1)).toBeNull();
  });
});

describe('normalizeSpeakerName', () => {
  it('strips platform suffixes and whitespace', () => {
    expect(normalizeSpeakerName('  Erin   Smith (Unverified) ')).toBe('Erin Smith');
    expect(normalizeSpeakerName('Frank (External) (Guest)')).toBe('Frank');
  });

  it('refuses placeholders', () => {
    expect(normalizeSpeakerName('Unknown user')).toBeNull();
    expect(normalizeSpeakerName('   ')).toBeNull();
  });
});
