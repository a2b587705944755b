import { describe, expect, it } from 'vitest';
import { type SignalledSpeakingChange, SpeakerAttribution } from '../../../bot/speakers/attribution.js';
import type { SpeakingSignal } from '../../../bot/speakers/signals.js';

type Change = [SpeakingSignal, string, boolean, number];

function attribution(changes: Change[], signals?: SpeakingSignal[]): SpeakerAttribution {
  const result = new SpeakerAttribution({ toleranceSeconds: 0.3, signals });
  for (const [signal, name, speaking, at] of changes) {
    const change: SignalledSpeakingChange = { signal, name, speaking, at };
    result.record(change);
  }
  return result;
}

/** One signal's view of a turn: speaking from `start` to `end`. */
function turn(signal: SpeakingSignal, name: string, start: number, end: number): Change[] {
  return [
    [signal, name, true, start],
    [signal, name, false, end],
  ];
}

/** Alice then Bob, as three page signals show them. */
const ALICE_THEN_BOB: Change[] = [
  ...turn('audio_level', 'Alice', 1, 4),
  ...turn('tile_changes', 'Alice', 1, 4),
  ...turn('people_panel', 'Alice', 1.1, 4.1),
  ...turn('audio_level', 'Bob', 4.5, 8),
  ...turn('tile_changes', 'Bob', 4.5, 8),
  ...turn('people_panel', 'Bob', 4.6, 8.1),
];

describe('SpeakerAttribution', () => {
  it('names a segment by the signals that saw someone, whichever of them are missing', () => {
    const all = attribution(ALICE_THEN_BOB);
    expect(all.attribute(1.2, 3.8)).toBe('Alice');
    expect(all.attribute(4.8, 7.5)).toBe('Bob');
    for (const missing of ['audio_level', 'tile_changes', 'people_panel'] as const) {
      const others = (['audio_level', 'tile_changes', 'people_panel'] as const).filter((s) => s !== missing);
      const partial = attribution(ALICE_THEN_BOB, others);
      expect(partial.attribute(1.2, 3.8), `without ${missing}`).toBe('Alice');
      expect(partial.attribute(4.8, 7.5), `without ${missing}`).toBe('Bob');
    }
  });

  it('lets the majority of signals outvote one that misreads', () => {
    const speakers = attribution([
      ...turn('audio_level', 'Alice', 1, 4),
      ...turn('tile_changes', 'Alice', 1, 4),
      // A stuck class keeps showing Bob.
      ...turn('speaking_class', 'Bob', 0, 10),
      ...turn('people_panel', 'Bob', 0, 10),
      ...turn('outline_style', 'Alice', 1, 4),
    ]);
    expect(speakers.attribute(1.5, 3.5)).toBe('Alice');
  });

  it('counts a known-class hint for less than a full signal, but uses it when alone', () => {
    const split = attribution([
      ...turn('speaking_class', 'Bob', 1, 4),
      ...turn('audio_level', 'Alice', 1, 4),
    ]);
    expect(split.attribute(1.5, 3.5)).toBe('Alice');
    expect(attribution(turn('speaking_class', 'Bob', 1, 4)).attribute(1.5, 3.5)).toBe('Bob');
  });

  it('breaks a tie of votes by the seconds of overlap', () => {
    const speakers = attribution([
      ...turn('audio_level', 'Alice', 1, 2),
      ...turn('tile_changes', 'Bob', 1, 4),
    ]);
    expect(speakers.attribute(1, 4)).toBe('Bob');
  });

  it('returns null when no signal saw anyone speak', () => {
    expect(attribution(turn('audio_level', 'Alice', 1, 2)).attribute(6, 8)).toBeNull();
    expect(new SpeakerAttribution().attribute(0, 10)).toBeNull();
  });

  it('ignores signals it was told to leave out', () => {
    const speakers = attribution(turn('people_panel', 'Alice', 1, 4), ['audio_level']);
    expect(speakers.attribute(1, 4)).toBeNull();
  });

  it("names a WebRTC source's stretch by the page's clear verdict and uses its sharper bounds", () => {
    // The page's indicators lag 0.8 s behind the audio; the source levels don't.
    const speakers = attribution([
      ...turn('audio_level', 'Alice', 1.8, 5.8),
      ...turn('audio_level', 'Bob', 5.8, 9.8),
      ...turn('webrtc', 'source:ssrc:1', 1, 5),
      ...turn('webrtc', 'source:ssrc:2', 5, 9),
    ]);
    // A segment at the very start of Bob's turn: the lagging page alone says Alice.
    expect(
      attribution([
        ...turn('audio_level', 'Alice', 1.8, 5.8),
        ...turn('audio_level', 'Bob', 5.8, 9.8),
      ]).attribute(5, 6),
    ).toBe('Alice');
    // The source's vote ties the page's; its overlap (1.3 s of Bob) beats Alice's (1.1 s).
    expect(speakers.attribute(5, 6)).toBe('Bob');
  });

  it('gives a source no name when the page saw several people over its stretch (a mixed track)', () => {
    const speakers = attribution([
      ...turn('audio_level', 'Alice', 1, 5),
      ...turn('audio_level', 'Bob', 5, 9),
      ...turn('webrtc', 'source:ssrc:9', 1, 9),
    ]);
    expect(attribution(turn('webrtc', 'source:ssrc:9', 1, 9)).attribute(2, 4)).toBeNull();
    expect(speakers.attribute(2, 4)).toBe('Alice');
    expect(speakers.attribute(6, 8)).toBe('Bob');
  });

  it('learns a source that always carried one person and names its stretches when the page shows nothing', () => {
    const changes: Change[] = [];
    for (let i = 0; i < 3; i++) {
      changes.push(...turn('audio_level', 'Carol', i * 10, i * 10 + 3));
      changes.push(...turn('webrtc', 'source:csrc:7', i * 10, i * 10 + 3));
    }
    // The page's signals are gone; the source still talks.
    changes.push(...turn('webrtc', 'source:csrc:7', 40, 43));
    expect(attribution(changes).attribute(40.5, 42.5)).toBe('Carol');
  });

  it('does not learn a source that rotates between people (Meet slots)', () => {
    const changes: Change[] = [];
    const people = ['Alice', 'Bob', 'Carol', 'Dan'];
    people.forEach((person, i) => {
      changes.push(...turn('audio_level', person, i * 10, i * 10 + 3));
      changes.push(...turn('webrtc', 'source:ssrc:1', i * 10, i * 10 + 3));
    });
    changes.push(...turn('webrtc', 'source:ssrc:1', 50, 53));
    expect(attribution(changes).attribute(50.5, 52.5)).toBeNull();
  });
});
