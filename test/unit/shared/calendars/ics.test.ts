import { describe, expect, it } from 'vitest';
import { expandFeed, FeedOverBudgetError, IcsParseError } from '../../../../shared/calendars/ics.js';
import { ianaZoneOf, zonedWallTimeToInstant } from '../../../../shared/calendars/time-zones.js';
import { deeplyNestedFeed } from '../../../support/hostile-feeds.js';
import { BERLIN_VTIMEZONE } from '../../../support/ics-server.js';

function calendar(body: string, extra = ''): string {
  return `BEGIN:VCALENDAR\nVERSION:2.0\nPRODID:-//test//EN\n${extra}${body}\nEND:VCALENDAR\n`.replace(
    /\n/g,
    '\r\n',
  );
}

const WINDOW = {
  from: new Date('2026-10-01T00:00:00Z'),
  to: new Date('2026-12-31T00:00:00Z'),
  maxOccurrences: 1000,
};

const starts = (text: string, window = WINDOW) =>
  expandFeed(text, window).occurrences.map(
    (o) => `${o.uid} ${o.recurrenceId ?? '-'} ${o.start.toISOString()}`,
  );

describe('expandFeed', () => {
  it('expands a daily Berlin event across the end of summer time, with EXDATE and a moved occurrence', () => {
    const text = calendar(
      `${BERLIN_VTIMEZONE}
BEGIN:VEVENT
UID:standup
DTSTART;TZID=Europe/Berlin:20261023T090000
DTEND;TZID=Europe/Berlin:20261023T091500
RRULE:FREQ=DAILY;COUNT=5
EXDATE;TZID=Europe/Berlin:20261024T090000
SUMMARY:Standup
END:VEVENT
BEGIN:VEVENT
UID:standup
RECURRENCE-ID;TZID=Europe/Berlin:20261026T090000
DTSTART;TZID=Europe/Berlin:20261026T140000
DTEND;TZID=Europe/Berlin:20261026T141500
SUMMARY:Standup (afternoon)
END:VEVENT`,
    );
    expect(starts(text)).toEqual([
      // 09:00 summer time is 07:00Z; from the 25th (winter time) 08:00Z.
      'standup 20261023T070000Z 2026-10-23T07:00:00.000Z',
      'standup 20261025T080000Z 2026-10-25T08:00:00.000Z',
      // The moved one keeps its RECURRENCE-ID and takes its new time.
      'standup 20261026T080000Z 2026-10-26T13:00:00.000Z',
      'standup 20261027T080000Z 2026-10-27T08:00:00.000Z',
    ]);
    const moved = expandFeed(text, WINDOW).occurrences[2]!;
    expect(moved.summary).toBe('Standup (afternoon)');
    expect(moved.end.toISOString()).toBe('2026-10-26T13:15:00.000Z');
  });

  it('reads a TZID without a VTIMEZONE as the IANA zone it names (America/New_York), DST included', () => {
    const text = calendar(`BEGIN:VEVENT
UID:ny
DTSTART;TZID=America/New_York:20261025T093000
DURATION:PT1H
RRULE:FREQ=WEEKLY;COUNT=3
SUMMARY:New York
END:VEVENT`);
    // US summer time ends on 1 November 2026: 13:30Z, then 14:30Z.
    expect(starts(text)).toEqual([
      'ny 20261025T133000Z 2026-10-25T13:30:00.000Z',
      'ny 20261101T143000Z 2026-11-01T14:30:00.000Z',
      'ny 20261108T143000Z 2026-11-08T14:30:00.000Z',
    ]);
    expect(expandFeed(text, WINDOW).occurrences[0]!.end.toISOString()).toBe('2026-10-25T14:30:00.000Z');
  });

  it('leaves out cancelled events, cancelled occurrences, all-day events and a METHOD:CANCEL calendar', () => {
    const events = `BEGIN:VEVENT
UID:gone
DTSTART:20261105T100000Z
DTEND:20261105T110000Z
STATUS:CANCELLED
END:VEVENT
BEGIN:VEVENT
UID:weekly
DTSTART:20261102T100000Z
DTEND:20261102T110000Z
RRULE:FREQ=WEEKLY;COUNT=3
END:VEVENT
BEGIN:VEVENT
UID:weekly
RECURRENCE-ID:20261109T100000Z
DTSTART:20261109T100000Z
DTEND:20261109T110000Z
STATUS:CANCELLED
END:VEVENT
BEGIN:VEVENT
UID:holiday
DTSTART;VALUE=DATE:20261106
END:VEVENT
BEGIN:VEVENT
UID:single
DTSTART:20261107T100000Z
DTEND:20261107T110000Z
END:VEVENT`;
    expect(starts(calendar(events))).toEqual([
      'weekly 20261102T100000Z 2026-11-02T10:00:00.000Z',
      'single - 2026-11-07T10:00:00.000Z',
      'weekly 20261116T100000Z 2026-11-16T10:00:00.000Z',
    ]);
    expect(starts(calendar(events, 'METHOD:CANCEL\n'))).toEqual([]);
  });

  it('keeps only occurrences within the window, and cuts at maxOccurrences saying so', () => {
    const text = calendar(`BEGIN:VEVENT
UID:forever
DTSTART:20200101T080000Z
DTEND:20200101T083000Z
RRULE:FREQ=DAILY
END:VEVENT`);
    const window = {
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-04T00:00:00Z'),
      maxOccurrences: 2,
    };
    const expansion = expandFeed(text, window);
    expect(expansion.occurrences.map((o) => o.start.toISOString())).toEqual([
      '2026-11-01T08:00:00.000Z',
      '2026-11-02T08:00:00.000Z',
    ]);
    expect(expansion.truncated).toBe(true);
  });

  it('notes an event in a zone nobody knows instead of failing the feed; refuses what is not iCalendar', () => {
    const text = calendar(`BEGIN:VEVENT
UID:mars
DTSTART;TZID=Mars/Olympus_Mons:20261105T100000
DTEND;TZID=Mars/Olympus_Mons:20261105T110000
END:VEVENT
BEGIN:VEVENT
UID:earth
DTSTART:20261105T100000Z
DTEND:20261105T110000Z
END:VEVENT`);
    const expansion = expandFeed(text, WINDOW);
    expect(expansion.occurrences.map((o) => o.uid)).toEqual(['earth']);
    expect(expansion.skipped).toEqual([{ uid: 'mars', reason: 'unknown time zone Mars/Olympus_Mons' }]);
    expect(() => expandFeed('<html>not a calendar</html>', WINDOW)).toThrow(IcsParseError);
  });

  it('reads the conference fields, URL, location and description of each occurrence', () => {
    const text = calendar(`BEGIN:VEVENT
UID:conf
DTSTART:20261105T100000Z
DTEND:20261105T110000Z
SUMMARY:Planning
LOCATION:Room 4
DESCRIPTION:Agenda
URL:https://example.com/agenda
X-GOOGLE-CONFERENCE:https://meet.google.com/abc-defg-hij
END:VEVENT`);
    expect(expandFeed(text, WINDOW).occurrences[0]).toMatchObject({
      summary: 'Planning',
      location: 'Room 4',
      description: 'Agenda',
      url: 'https://example.com/agenda',
      conference: ['https://meet.google.com/abc-defg-hij'],
    });
  });
});

describe('expandFeed budgets', () => {
  const minutely = (uid: string, start: string) => `BEGIN:VEVENT
UID:${uid}
DTSTART:${start}
DURATION:PT1M
RRULE:FREQ=MINUTELY
END:VEVENT`;
  const day = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-02T00:00:00Z') };

  it('gives up a feed whose recurrences, all events together, pass the step budget', () => {
    // Two series that each start 300 minutes before the window: 600 steps before any occurrence.
    const text = calendar([minutely('a', '20261031T190000Z'), minutely('b', '20261031T190000Z')].join('\n'));
    const window = { ...day, maxOccurrences: 10, maxSteps: 500 };
    expect(() => expandFeed(text, window)).toThrow(FeedOverBudgetError);
    expect(() => expandFeed(text, window)).toThrow(
      /^the feed's events repeat too often to read: more than 500 recurrences/,
    );
    expect(expandFeed(text, { ...window, maxSteps: 700 }).occurrences).toHaveLength(10);
  });

  it('stops a series once its first maxOccurrences are in: the rest of the day is never stepped through', () => {
    // 1,440 occurrences in the window; 3 are kept, so a budget of 100 steps is enough.
    const text = calendar(minutely('busy', '20261101T000000Z'));
    const expansion = expandFeed(text, { ...day, maxOccurrences: 3, maxSteps: 100 });
    expect(expansion.occurrences.map((o) => o.start.toISOString())).toEqual([
      '2026-11-01T00:00:00.000Z',
      '2026-11-01T00:01:00.000Z',
      '2026-11-01T00:02:00.000Z',
    ]);
    expect(expansion.truncated).toBe(true);
  });

  it('keeps the earliest occurrences of the whole feed while holding few of them at a time', () => {
    // Each later event starts earlier: the kept ones come from the last events read.
    const events = Array.from({ length: 12 }, (_, index) =>
      minutely(`e${index}`, `20261101T${String(12 - index).padStart(2, '0')}0000Z`),
    );
    const expansion = expandFeed(calendar(events.join('\n')), { ...day, maxOccurrences: 2 });
    expect(expansion.occurrences.map((o) => `${o.uid} ${o.start.toISOString()}`)).toEqual([
      'e11 2026-11-01T01:00:00.000Z',
      'e11 2026-11-01T01:01:00.000Z',
    ]);
    expect(expansion.truncated).toBe(true);
  });

  it('refuses components nested deeper than a calendar has, before parsing them', () => {
    expect(() => expandFeed(deeplyNestedFeed(100_000), WINDOW)).toThrow(
      new IcsParseError('not a calendar: its components are nested more than 8 deep'),
    );
    // VCALENDAR > VEVENT > VALARM is read.
    const withAlarm = calendar(`BEGIN:VEVENT
UID:alarm
DTSTART:20261105T100000Z
DTEND:20261105T110000Z
BEGIN:VALARM
TRIGGER:-PT5M
ACTION:DISPLAY
END:VALARM
END:VEVENT`);
    expect(expandFeed(withAlarm, WINDOW).occurrences.map((o) => o.uid)).toEqual(['alarm']);
  });
});

describe('zonedWallTimeToInstant', () => {
  it('reads wall clocks in IANA zones, the spring gap forward and the autumn repeat as its first', () => {
    const wall = (iso: string) => Date.parse(`${iso}Z`);
    const at = (iso: string, zone: string) =>
      new Date(zonedWallTimeToInstant(wall(iso), zone)!).toISOString();
    expect(at('2026-07-01T09:00:00', 'Europe/Berlin')).toBe('2026-07-01T07:00:00.000Z');
    expect(at('2026-01-15T09:00:00', 'America/New_York')).toBe('2026-01-15T14:00:00.000Z');
    // 02:30 does not exist on 29 March 2026 in Berlin: read with the winter offset (03:30 summer time).
    expect(at('2026-03-29T02:30:00', 'Europe/Berlin')).toBe('2026-03-29T01:30:00.000Z');
    // 02:30 comes twice on 25 October 2026 in Berlin: the first (summer time).
    expect(at('2026-10-25T02:30:00', 'Europe/Berlin')).toBe('2026-10-25T00:30:00.000Z');
    expect(zonedWallTimeToInstant(wall('2026-07-01T09:00:00'), 'Not/AZone')).toBeUndefined();
  });
});

describe('ianaZoneOf', () => {
  it('understands IANA names, Windows names and IANA names behind a prefix', () => {
    expect(ianaZoneOf('America/New_York')).toBe('America/New_York');
    expect(ianaZoneOf('W. Europe Standard Time')).toBe('Europe/Berlin');
    expect(ianaZoneOf('/mozilla.org/20070129_1/Europe/Berlin')).toBe('Europe/Berlin');
    expect(ianaZoneOf('Mars/Olympus_Mons')).toBeUndefined();
  });
});
