import type { ExportSegment } from './cues.js';
import { plainTextTranscript } from './plain-text.js';
import { subRipTranscript } from './subrip.js';
import { webVttTranscript } from './webvtt.js';

/** What GET /transcripts can answer, the default first (`?format=`). */
export const TRANSCRIPT_FORMATS = ['json', 'txt', 'srt', 'vtt'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];
export type TextTranscriptFormat = Exclude<TranscriptFormat, 'json'>;

/** The media types an Accept header can ask for each format by. */
export const FORMAT_MEDIA_TYPES: Record<TranscriptFormat, readonly string[]> = {
  json: ['application/json'],
  txt: ['text/plain'],
  srt: ['application/x-subrip', 'text/srt'],
  vtt: ['text/vtt'],
};

export interface TextTranscriptExport {
  contentType: string;
  render(segments: readonly ExportSegment[]): string;
}

/** The text formats: how each is written and the Content-Type it is sent with (always UTF-8). */
export const TEXT_EXPORTS: Record<TextTranscriptFormat, TextTranscriptExport> = {
  txt: { contentType: 'text/plain; charset=utf-8', render: plainTextTranscript },
  srt: { contentType: 'application/x-subrip; charset=utf-8', render: subRipTranscript },
  vtt: { contentType: 'text/vtt; charset=utf-8', render: webVttTranscript },
};

/** `<platform>-<native_meeting_id>.<format>`, with anything but letters, digits, `.`, `_`, `-` as `_`. */
export function exportFilename(
  platform: string,
  nativeMeetingId: string,
  format: TextTranscriptFormat,
): string {
  return `${platform}-${nativeMeetingId}.${format}`.replace(/[^A-Za-z0-9._-]/g, '_');
}
