import { clockTime } from './clock.js';
import { type ExportSegment, toCues } from './cues.js';

/**
 * A readable transcript: one line per segment, `[HH:MM:SS] Speaker: text` (`[HH:MM:SS] text` when
 * nobody was named), the time the segment starts (whole seconds, as a player's clock shows it).
 * Every line ends with a line feed; no segments, no lines.
 */
export function plainTextTranscript(segments: readonly ExportSegment[]): string {
  return toCues(segments)
    .map((cue) => {
      const speaker = cue.speaker === null ? '' : `${cue.speaker}: `;
      return `[${clockTime(cue.startMs)}] ${speaker}${cue.text}\n`;
    })
    .join('');
}
