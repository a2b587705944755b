import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type IcsRoute = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A local HTTP server on 127.0.0.1 serving calendar feeds the test sets and changes as it goes
 * (`feeds`: path → iCalendar text), and routes of its own for the fetcher's limits (slow, large,
 * redirecting answers). Counts the requests of each path.
 */
export class IcsServer {
  readonly feeds = new Map<string, string>();
  readonly routes = new Map<string, IcsRoute>();
  readonly hits = new Map<string, number>();
  private server: Server | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();
  port = 0;

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      const route = this.routes.get(path);
      if (route) return route(request, response);
      const feed = this.feeds.get(path);
      if (feed === undefined) {
        response.writeHead(404).end('not found');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'text/calendar; charset=utf-8' }).end(feed);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.address() as AddressInfo).port;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** `YYYYMMDDTHHMMSSZ` */
export function icsUtc(at: Date): string {
  return at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** The wall clock of an instant in an IANA zone, as iCalendar writes it after `TZID=…:` */
export function icsWall(at: Date, zone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}${parts.month}${parts.day}T${parts.hour}${parts.minute}${parts.second}`;
}

/** A VCALENDAR around these components, with CRLF line ends. */
export function icsCalendar(components: string[]): string {
  return ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//meetbot tests//EN', ...components, 'END:VCALENDAR', '']
    .join('\n')
    .replace(/\n/g, '\r\n');
}

export const BERLIN_VTIMEZONE = `BEGIN:VTIMEZONE
TZID:Europe/Berlin
BEGIN:DAYLIGHT
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
TZNAME:CEST
DTSTART:19700329T020000
RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU
END:DAYLIGHT
BEGIN:STANDARD
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
TZNAME:CET
DTSTART:19701025T030000
RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU
END:STANDARD
END:VTIMEZONE`;

/** One VEVENT of these lines (properties as written, e.g. `SUMMARY:Standup`). */
export function icsEvent(lines: string[]): string {
  return ['BEGIN:VEVENT', ...lines, 'END:VEVENT'].join('\n');
}
