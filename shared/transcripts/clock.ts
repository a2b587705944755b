/**
 * Segment times (float seconds from the start of the transcript) as whole milliseconds: rounded once
 * here, so a clock never shows 1000 milliseconds and every format agrees on a cue's times.
 * Negative or non-finite times (no segment should have them) become 0.
 */
export function toMilliseconds(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 0;
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
