/**
 * Wall-clock times in an IANA time zone (a TZID a feed names without a VTIMEZONE of its own, such as
 * `America/New_York`), turned into instants with Node's Intl, daylight saving time included. Pure.
 */

/**
 * One formatter per zone Intl knows, keyed by the name in lower case: Intl reads zone names in any
 * case, so a feed's many spellings of one zone share an entry and the map stays as small as the zone
 * list. A name Intl refuses is never kept.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat | undefined {
  const key = zone.toLowerCase();
  let formatter = formatters.get(key);
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
    formatters.set(key, formatter);
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

/** Windows' names for the most used zones (Outlook and Exchange write them as TZIDs). */
const WINDOWS_ZONES: Record<string, string> = {
  'W. Europe Standard Time': 'Europe/Berlin',
  'Romance Standard Time': 'Europe/Paris',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'GMT Standard Time': 'Europe/London',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'FLE Standard Time': 'Europe/Kiev',
  'Russian Standard Time': 'Europe/Moscow',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'US Mountain Standard Time': 'America/Phoenix',
  'Pacific Standard Time': 'America/Los_Angeles',
  'Alaskan Standard Time': 'America/Anchorage',
  'Hawaiian Standard Time': 'Pacific/Honolulu',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'India Standard Time': 'Asia/Kolkata',
  'China Standard Time': 'Asia/Shanghai',
  'Tokyo Standard Time': 'Asia/Tokyo',
  'Singapore Standard Time': 'Asia/Singapore',
  'AUS Eastern Standard Time': 'Australia/Sydney',
  'New Zealand Standard Time': 'Pacific/Auckland',
  UTC: 'UTC',
};

/**
 * The IANA zone a TZID names: itself, a Windows name (`W. Europe Standard Time`), or an IANA name
 * behind a prefix (Lightning's `/mozilla.org/20070129_1/Europe/Berlin`). Undefined when none is known.
 */
export function ianaZoneOf(tzid: string): string | undefined {
  const name = tzid.trim();
  if (isKnownTimeZone(name)) return name;
  const windows = WINDOWS_ZONES[name];
  if (windows) return windows;
  const parts = name.split('/');
  for (let index = 1; index < parts.length - 1; index += 1) {
    const tail = parts.slice(index).join('/');
    if (isKnownTimeZone(tail)) return tail;
  }
  return undefined;
}
