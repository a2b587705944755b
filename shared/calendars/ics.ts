import ICAL from 'ical.js';
import { ianaZoneOf, zonedWallTimeToInstant } from './time-zones.js';

/** One occurrence of a feed's event within the window, with the text its meeting link is looked for in. */
export interface FeedOccurrence {
  uid: string;
  /** A recurring event's occurrence: its original start (RECURRENCE-ID) as UTC `YYYYMMDDTHHMMSSZ`. */
  recurrenceId: string | null;
  start: Date;
  end: Date;
  summary: string;
  description: string;
  location: string;
  url: string;
  /** Conference fields (X-GOOGLE-CONFERENCE, CONFERENCE, Teams' X-MICROSOFT-… URL properties). */
  conference: string[];
}

/** An event left out of the expansion, and why (shown in the poll's outcome, never fatal). */
export interface SkippedEvent {
  uid: string;
  reason: string;
}

export interface ExpansionWindow {
  /** Occurrences starting before this are left out. */
  from: Date;
  /** ... and those starting after this. */
  to: Date;
  /** At most this many occurrences; later ones are left out and the expansion says it was cut. */
  maxOccurrences: number;
  /**
   * Recurrence steps of the whole feed (every event's, counted as they are taken) before the feed is
   * given up with a FeedOverBudgetError. Default: DEFAULT_MAX_EXPANSION_STEPS.
   */
  maxSteps?: number;
}

export interface Expansion {
  occurrences: FeedOccurrence[];
  skipped: SkippedEvent[];
  /** More occurrences than maxOccurrences were in the window (the earliest were kept). */
  truncated: boolean;
}

export class IcsParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IcsParseError';
  }
}

/** A feed that would take more than its budget to read (steps, time or memory): never partly read. */
export class FeedOverBudgetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedOverBudgetError';
  }
}

/** Steps of one event's recurrence before it is given up (a rule like FREQ=SECONDLY from years ago). */
const MAX_RECURRENCE_STEPS = 50_000;
/** Recurrence steps of a whole feed: some 6 s of ical.js on one core of this project's bench machine. */
export const DEFAULT_MAX_EXPANSION_STEPS = 1_000_000;
/** Calendars nest VCALENDAR > VEVENT > VALARM at most; a deeper file is not a calendar. */
const MAX_NESTING = 8;

const CONFERENCE_PROPERTIES = [
  'x-google-conference',
  'conference',
  'x-microsoft-skypeteamsmeetingurl',
  'x-microsoft-onlinemeetingconflink',
];

type Component = InstanceType<typeof ICAL.Component>;
type Time = InstanceType<typeof ICAL.Time>;

class UnknownTimeZone extends Error {}

/**
 * The instant of an iCalendar time: UTC as written; a zone defined by a VTIMEZONE of the feed as
 * ical.js reads it; a TZID without a VTIMEZONE as the IANA zone it names (Node's Intl; a Windows
 * zone name or a prefixed IANA name is understood too); a floating
 * time (no zone at all) as UTC.
 */
function instantOf(time: Time, tzid: string | undefined): number {
  const zone = time.zone?.tzid;
  if (zone && zone !== 'floating') return time.toUnixTime() * 1000;
  const wall = Date.UTC(time.year, time.month - 1, time.day, time.hour, time.minute, time.second);
  if (!tzid) return wall;
  const iana = ianaZoneOf(tzid);
  const instant = iana === undefined ? undefined : zonedWallTimeToInstant(wall, iana);
  if (instant === undefined) throw new UnknownTimeZone(`unknown time zone ${tzid}`);
  return instant;
}

function tzidOf(component: Component, property: string): string | undefined {
  const value = component.getFirstProperty(property)?.getParameter('tzid');
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function timeOf(component: Component, property: string): Time | undefined {
  const value = component.getFirstPropertyValue(property);
  return value instanceof ICAL.Time ? value : undefined;
}

function textOf(component: Component, property: string): string {
  return component
    .getAllProperties(property)
    .map((prop) => String(prop.getFirstValue() ?? ''))
    .join('\n');
}

/** `YYYYMMDDTHHMMSSZ` */
function basicUtc(instant: number): string {
  return new Date(instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

interface EventText {
  summary: string;
  description: string;
  location: string;
  url: string;
  conference: string[];
}

function eventText(component: Component, fallback?: EventText): EventText {
  const conference = CONFERENCE_PROPERTIES.map((name) => textOf(component, name)).filter((text) => text);
  const own = {
    summary: textOf(component, 'summary'),
    description: textOf(component, 'description'),
    location: textOf(component, 'location'),
    url: textOf(component, 'url'),
    conference,
  };
  if (!fallback) return own;
  return {
    summary: own.summary || fallback.summary,
    description: own.description || fallback.description,
    location: own.location || fallback.location,
    url: own.url || fallback.url,
    conference: own.conference.length > 0 ? own.conference : fallback.conference,
  };
}

function isCancelled(component: Component): boolean {
  return String(component.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
}

/** Start and end instants of a single (not recurring) VEVENT; undefined for an all-day event. */
function spanOf(component: Component): { start: number; end: number } | undefined {
  const start = timeOf(component, 'dtstart');
  if (!start) throw new IcsParseError('an event has no DTSTART');
  if (start.isDate) return undefined;
  const startMs = instantOf(start, tzidOf(component, 'dtstart'));
  const end = timeOf(component, 'dtend');
  if (end) return { start: startMs, end: Math.max(startMs, instantOf(end, tzidOf(component, 'dtend'))) };
  const duration = component.getFirstPropertyValue('duration');
  const seconds = duration instanceof ICAL.Duration ? duration.toSeconds() : 0;
  return { start: startMs, end: startMs + Math.max(0, seconds) * 1000 };
}

/**
 * The occurrences of a feed's events that start within the window: recurring events expanded
 * (RRULE, RDATE, EXDATE by ical.js), an occurrence replaced by its RECURRENCE-ID override (moved,
 * retitled, or cancelled), cancelled events (STATUS:CANCELLED, or a METHOD:CANCEL calendar) left
 * out, all-day events left out. Pure: the window carries the clock.
 */
export function expandFeed(text: string, window: ExpansionWindow): Expansion {
  // The parser's own messages quote the text: never shown, since where the operator allows private
  // addresses a feed URL could name an internal service whose answer its user must not read.
  checkNesting(text);
  let root: Component;
  try {
    root = new ICAL.Component(ICAL.parse(text));
  } catch {
    throw new IcsParseError('not an iCalendar file: it could not be parsed');
  }
  if (root.name !== 'vcalendar') throw new IcsParseError('not an iCalendar file: no VCALENDAR');
  const expansion: Expansion = { occurrences: [], skipped: [], truncated: false };
  if (String(root.getFirstPropertyValue('method') ?? '').toUpperCase() === 'CANCEL') return expansion;

  const byUid = new Map<string, { master?: Component; overrides: Component[] }>();
  for (const vevent of root.getAllSubcomponents('vevent')) {
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '').trim();
    if (!uid) {
      expansion.skipped.push({ uid: '', reason: 'an event without a UID' });
      continue;
    }
    const group = byUid.get(uid) ?? { overrides: [] };
    byUid.set(uid, group);
    if (vevent.hasProperty('recurrence-id')) group.overrides.push(vevent);
    else group.master ??= vevent;
  }

  const from = window.from.getTime();
  const to = window.to.getTime();
  const limits: EventLimits = {
    inWindow: (start: number) => start >= from && start <= to,
    to,
    maxOccurrences: window.maxOccurrences,
    steps: new StepBudget(window.maxSteps ?? DEFAULT_MAX_EXPANSION_STEPS),
  };
  const keep = (occurrences: FeedOccurrence[]) => {
    occurrences.sort((a, b) => a.start.getTime() - b.start.getTime() || a.uid.localeCompare(b.uid));
    if (occurrences.length > window.maxOccurrences) {
      occurrences.length = window.maxOccurrences;
      expansion.truncated = true;
    }
  };
  for (const [uid, { master, overrides }] of byUid) {
    try {
      const event = expandEvent(uid, master, overrides, limits);
      if (event.cut) expansion.truncated = true;
      expansion.occurrences.push(...event.occurrences);
      // Held to twice the cap as events are read: the earliest maxOccurrences are all that is kept.
      if (expansion.occurrences.length > 2 * window.maxOccurrences) keep(expansion.occurrences);
    } catch (error) {
      if (error instanceof FeedOverBudgetError) throw error;
      const reason =
        error instanceof UnknownTimeZone || error instanceof IcsParseError
          ? error.message
          : 'could not be read';
      expansion.skipped.push({ uid, reason });
    }
  }
  keep(expansion.occurrences);
  return expansion;
}

/** Refuses a file whose components nest deeper than any calendar's, before the parser reads it. */
function checkNesting(text: string): void {
  let depth = 0;
  for (const match of text.matchAll(/^(BEGIN|END):/gim)) {
    depth += match[1]!.toUpperCase() === 'BEGIN' ? 1 : -1;
    if (depth > MAX_NESTING) {
      throw new IcsParseError(`not a calendar: its components are nested more than ${MAX_NESTING} deep`);
    }
  }
}

/** The recurrence steps a whole feed may take. */
class StepBudget {
  private taken = 0;

  constructor(private readonly limit: number) {}

  take(): void {
    this.taken += 1;
    if (this.taken > this.limit) {
      throw new FeedOverBudgetError(
        `the feed's events repeat too often to read: more than ${this.limit.toLocaleString('en-US')} ` +
          "recurrences (counted from each series' first date) before the end of the scheduling window. " +
          'Remove rules such as FREQ=MINUTELY, or series started long ago with no end',
      );
    }
  }
}

interface EventLimits {
  inWindow: (start: number) => boolean;
  to: number;
  /** An event's occurrences after its first this many in the window can't be among the feed's earliest. */
  maxOccurrences: number;
  steps: StepBudget;
}

function expandEvent(
  uid: string,
  master: Component | undefined,
  overrides: Component[],
  { inWindow, to, maxOccurrences, steps }: EventLimits,
): { occurrences: FeedOccurrence[]; cut: boolean } {
  if (master && isCancelled(master)) return { occurrences: [], cut: false };
  const masterText = master && eventText(master);
  const occurrences: FeedOccurrence[] = [];
  const recurring = master && (master.hasProperty('rrule') || master.hasProperty('rdate'));
  const overridden = new Set<number>();

  for (const override of overrides) {
    steps.take();
    const recurrence = timeOf(override, 'recurrence-id');
    if (!recurrence) continue;
    const recurrenceMs = instantOf(recurrence, tzidOf(override, 'recurrence-id'));
    overridden.add(recurrenceMs);
    if (isCancelled(override)) continue;
    const span = spanOf(override);
    if (!span || !inWindow(span.start)) continue;
    occurrences.push({
      uid,
      recurrenceId: basicUtc(recurrenceMs),
      start: new Date(span.start),
      end: new Date(span.end),
      ...eventText(override, masterText),
    });
  }
  if (!master || !masterText) return { occurrences, cut: false };

  if (!recurring) {
    steps.take();
    const span = spanOf(master);
    if (span && inWindow(span.start)) {
      occurrences.push({
        uid,
        recurrenceId: null,
        start: new Date(span.start),
        end: new Date(span.end),
        ...masterText,
      });
    }
    return { occurrences, cut: false };
  }

  const span = spanOf(master);
  if (!span) return { occurrences, cut: false }; // a recurring all-day event
  const duration = span.end - span.start;
  const tzid = tzidOf(master, 'dtstart');
  const iterator = new ICAL.Event(master, { exceptions: [] }).iterator();
  let inSeries = 0;
  for (let step = 0; ; step += 1) {
    if (step >= MAX_RECURRENCE_STEPS) {
      throw new IcsParseError(
        `its recurrence has more than ${MAX_RECURRENCE_STEPS} occurrences before the window ends`,
      );
    }
    steps.take();
    const next = iterator.next();
    if (!next) break;
    const start = instantOf(next, tzid);
    if (start > to) break;
    if (overridden.has(start) || !inWindow(start)) continue;
    // The series runs in order: past its first maxOccurrences in the window, none can be kept.
    if (inSeries >= maxOccurrences) return { occurrences, cut: true };
    inSeries += 1;
    occurrences.push({
      uid,
      recurrenceId: basicUtc(start),
      start: new Date(start),
      end: new Date(start + duration),
      ...masterText,
    });
  }
  return { occurrences, cut: false };
}
