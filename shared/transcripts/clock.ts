import { SEGMENT_TIME_MAX_SECONDS } from '../contract/events.js';

/**
 * Segment times (float seconds from the start of the transcript) as whole milliseconds: rounded once
 * here, so a clock never shows 1000 milliseconds and every format agrees on a cue's times.
 * Negative or non-finite times (no segment should have them) become 0, and times past
 * SEGMENT_TIME_MAX_SECONDS (refused at ingest, but a row stored before that rule may hold one)
 * print as that bound, never as an exponent.
 */
export function toMilliseconds(seconds: number): number {
  if (!Number.isFinite(seconds) || seconds <= 0) return 0;
  return Math.round(Math.min(seconds, SEGMENT_TIME_MAX_SECONDS) * 1000);
}

/**
 * `HH:MM:SS` plus `<separator>mmm` when a separator is given (`,` SubRip, `.` WebVTT). Hours take as
 * many digits as they need past 99; they never wrap at 24.
 */
export function clockTime(milliseconds: number, millisecondSeparator?: ',' | '.'): string {
  const totalSeconds = Math.floor(milliseconds / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor(totalSeconds / 60) % 60;
  const seconds = totalSeconds % 60;
  const clock = `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}`;
  return millisecondSeparator === undefined
    ? clock
    : `${clock}${millisecondSeparator}${pad(milliseconds % 1000, 3)}`;
}

function pad(value: number, digits: number): string {
  return String(value).padStart(digits, '0');
}
