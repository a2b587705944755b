import { toMilliseconds } from './clock.js';

/** What a text export needs of a stored segment (its speaker as stored: null when nobody was named). */
export interface ExportSegment {
  start: number;
  end: number;
  text: string;
  speaker: string | null;
}

/** A segment ready for a text format: one line of text, a speaker or none, whole-millisecond times. */
export interface Cue {
  startMs: number;
  /** Never before startMs. */
  endMs: number;
  speaker: string | null;
  text: string;
}

// Line breaks, other whitespace and control characters: each run becomes one space.
const BREAKS_AND_SPACES = /[\s\p{Cc}]+/gu;

/** Text on one line: line breaks and whitespace runs collapsed to single spaces, trimmed. */
export function oneLine(text: string): string {
  return text.replace(BREAKS_AND_SPACES, ' ').trim();
}

/**
 * The segments as cues, in the order given (the transcript's chronological order): segments with no
 * words are left out, a blank speaker counts as none.
 */
export function toCues(segments: readonly ExportSegment[]): Cue[] {
  const cues: Cue[] = [];
  for (const segment of segments) {
    const text = oneLine(segment.text);
    if (text === '') continue;
    const speaker = segment.speaker === null ? '' : oneLine(segment.speaker);
    const startMs = toMilliseconds(segment.start);
    cues.push({
      startMs,
      endMs: Math.max(startMs, toMilliseconds(segment.end)),
      speaker: speaker === '' ? null : speaker,
      text,
    });
  }
  return cues;
}
