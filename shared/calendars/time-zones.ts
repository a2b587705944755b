/**
 * Wall-clock times in an IANA time zone (a TZID a feed names without a VTIMEZONE of its own, such as
 * `America/New_York`), turned into instants with Node's Intl, daylight saving time included. Pure.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat | undefined {
  let formatter = formatters.get(zone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return undefined;
    }
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether Intl knows this zone (an IANA name such as Europe/Berlin, or UTC). */
export function isKnownTimeZone(zone: string): boolean {
  return formatterOf(zone) !== undefined;
}

/** The zone's offset from UTC at `instantMs`, in ms (east positive). */
function offsetAt(formatter: Intl.DateTimeFormat, instantMs: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(instantMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wall - Math.floor(instantMs / 1000) * 1000;
}

/**
 * The instant a wall-clock time in `zone` names (`wallMs`: the wall clock read as if it were UTC).
 * A time skipped by a spring-forward gap is read with the offset before the gap (02:30 on the
 * changeover night is 03:30 summer time), as calendar programs do; a time that comes twice in the
 * autumn is the first of the two. Undefined for a zone Intl does not know.
 */
export function zonedWallTimeToInstant(wallMs: number, zone: string): number | undefined {
  const formatter = formatterOf(zone);
  if (!formatter) return undefined;
  const first = offsetAt(formatter, wallMs);
  const guess = wallMs - first;
  const second = offsetAt(formatter, guess);
  if (second === first) {
    // The autumn overlap: an hour earlier may read the same wall clock with the summer offset.
    const earlier = wallMs - offsetAt(formatter, guess - 3_600_000);
    if (earlier < guess && earlier + offsetAt(formatter, earlier) === wallMs) return earlier;
    return guess;
  }
  const retried = wallMs - second;
  // In a gap neither offset reads back the wall clock: take the offset before the gap.
  if (retried + offsetAt(formatter, retried) === wallMs) return retried;
  return wallMs - Math.min(first, second);
}
