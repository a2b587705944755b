import { icsCalendar, icsEvent, icsUtc } from './ics-server.js';

/**
 * Calendar feeds built to stall whoever reads them (issue 48): the tests and the event-loop bench
 * serve them on 127.0.0.1. Each is valid iCalendar text a user could register.
 */

const DAY_MS = 86_400_000;

/** One event whose rule never matches a date (30 February): ical.js's iterator never comes back. */
export function neverMatchingFeed(now = new Date()): string {
  return icsCalendar([
    icsEvent([
      'UID:never@example.com',
      `DTSTART:${icsUtc(now)}`,
      'DURATION:PT30M',
      'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
      'LOCATION:https://meet.google.com/abc-defg-hij',
    ]),
  ]);
}

/** `count` events repeating every minute since `daysAgo` days, each with a meeting link. */
export function minutelyFeed(count = 500, daysAgo = 30, now = new Date()): string {
  const start = new Date(now.getTime() - daysAgo * DAY_MS);
  return icsCalendar(
    Array.from({ length: count }, (_, index) =>
      icsEvent([
        `UID:minutely-${index}@example.com`,
        `DTSTART:${icsUtc(start)}`,
        'DURATION:PT1M',
        'RRULE:FREQ=MINUTELY',
        'LOCATION:https://meet.google.com/abc-defg-hij',
      ]),
    ),
  );
}

/** Single events (no meeting link) up to `bytes` long, spread over the next 25 days. */
export function largeFeed(bytes = 5 * 1024 * 1024, now = new Date()): string {
  const events: string[] = [];
  let length = 60;
  for (let index = 0; ; index += 1) {
    const event = icsEvent([
      `UID:large-${index}@example.com`,
      `DTSTART:${icsUtc(new Date(now.getTime() + (index % 600) * 3_600_000))}`,
      'DURATION:PT30M',
      `SUMMARY:Planning session number ${index}`,
    ]);
    const written = event.replace(/\n/g, '\r\n').length + 2;
    if (length + written > bytes) break;
    length += written;
    events.push(event);
  }
  return icsCalendar(events);
}

/** A calendar whose components nest `depth` deep (BEGIN:X inside BEGIN:X ...). */
export function deeplyNestedFeed(depth = 100_000): string {
  return `BEGIN:VCALENDAR\r\n${'BEGIN:X-NEST\r\n'.repeat(depth)}${'END:X-NEST\r\n'.repeat(depth)}END:VCALENDAR\r\n`;
}
