import { clockTime } from './clock.js';
import { type ExportSegment, toCues } from './cues.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Cue text and voice names as WebVTT reads them: `&`, `<`, `>` escaped (so no `-->` either). */
export function escapeWebVtt(text: string): string {
  return text.replace(/[&<>]/g, (character) => ESCAPES[character]!);
}

/**
 * WebVTT (.vtt): the `WEBVTT` line, then cues numbered from 1, `HH:MM:SS.mmm --> HH:MM:SS.mmm`, and
 * one line of text, in a voice span `<v Speaker>text</v>` when someone was named; a blank line
 * after the header and between cues, line feeds throughout.
 */
export function webVttTranscript(segments: readonly ExportSegment[]): string {
  const cues = toCues(segments).map((cue, index) => {
    const text = escapeWebVtt(cue.text);
    const timing = `${clockTime(cue.startMs, '.')} --> ${clockTime(cue.endMs, '.')}`;
    const body = cue.speaker === null ? text : `<v ${escapeWebVtt(cue.speaker)}>${text}</v>`;
    return `${index + 1}\n${timing}\n${body}\n`;
  });
  // The magic line takes two line terminators even when no cue follows.
  return `WEBVTT\n\n${cues.join('\n')}`;
}
