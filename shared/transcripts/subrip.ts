import { clockTime } from './clock.js';
import { type ExportSegment, toCues } from './cues.js';

/**
 * SubRip has no escapes, yet players read markup in cue text: HTML-like tags (`<b>`, `<i>`,
 * `<font color=…>`, and whatever else a player's HTML-ish parser accepts) and ASS override blocks
 * (`{\an8}`, `{\c&H0000FF&}`) in VLC, mpv and ffmpeg. Entities such as `&lt;` are not decoded by
 * most of them, so escaping would show the entity instead of the character. What is left is to
 * write the markup characters as their full-width look-alikes: the words read the same, no player
 * takes them for markup, and with `>` gone no line can read as a cue's `-->` timing line either.
 */
const MARKUP_LOOKALIKES: Record<string, string> = { '<': '＜', '>': '＞', '{': '｛', '}': '｝' };

function cueText(text: string): string {
  return text.replace(/[<>{}]/g, (character) => MARKUP_LOOKALIKES[character]!);
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
