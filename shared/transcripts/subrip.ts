import { clockTime } from './clock.js';
import { type ExportSegment, toCues } from './cues.js';

// SubRip has no escapes, and a line with an arrow in it reads as a cue's timing line.
const ARROW = /-{2,}>/g;

function cueText(text: string): string {
  return text.replace(ARROW, '->');
}

/**
 * SubRip (.srt): cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, then one line of text,
 * `Speaker: text` when someone was named; a blank line between cues, line feeds throughout.
 */
export function subRipTranscript(segments: readonly ExportSegment[]): string {
  return toCues(segments)
    .map((cue, index) => {
      const speaker = cue.speaker === null ? '' : `${cueText(cue.speaker)}: `;
      const timing = `${clockTime(cue.startMs, ',')} --> ${clockTime(cue.endMs, ',')}`;
      return `${index + 1}\n${timing}\n${speaker}${cueText(cue.text)}\n`;
    })
    .join('\n');
}
