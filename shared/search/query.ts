import { z } from 'zod';
import { PLATFORMS, type Platform } from '../contract/platforms.js';
import { MAX_DB_INTEGER } from '../infra/knex.js';

/** The longest search text accepted: a question, not a document. */
export const SEARCH_TEXT_MAX_CHARS = 500;

/** What to search for and where: the validated form of GET /search's query (and the MCP tool's arguments). */
export interface SearchQuery {
  /** websearch syntax: words, "a phrase", `or`, `-excluded`. */
  text: string;
  platform?: Platform | undefined;
  /** Only this meeting (its `id`). */
  meetingId?: number | undefined;
  /** Only the meetings with this platform id (with `platform`). */
  nativeMeetingId?: string | undefined;
  /** Only segments this speaker said (case-insensitive, the whole name); leaves metadata out. */
  speaker?: string | undefined;
  /** Spoken (segments) or started (metadata) at or after this instant. */
  from?: Date | undefined;
  /** Spoken or started before this instant. */
  to?: Date | undefined;
  limit: number;
  offset: number;
}

/** Page sizes of the deployment's lists (LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT). */
export interface SearchPageSizes {
  defaultLimit: number;
  maxLimit: number;
}

const DATE_ONLY = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DATE_MESSAGE =
  'must be an ISO 8601 date (2026-11-22) or time with Z or an offset (2026-11-22T10:00:00Z)';
const DAY_MS = 86_400_000;

/**
 * A date or time bound. A date is a UTC day: `from` a day starts at its midnight, `to` a day ends at
 * the next midnight, so `from=2026-11-01&to=2026-11-30` is the whole of November.
 */
function instant(bound: 'from' | 'to') {
  const isoTime = z.iso.datetime({ offset: true });
  return z.string({ error: 'must be a single date or time' }).transform((value, context) => {
    const time = DATE_ONLY.test(value)
      ? utcDay(value, bound)
      : isoTime.safeParse(value).success
        ? new Date(value)
        : undefined;
    // Year 0 has no place on Postgres' calendar (1 BC is year 1 BC, and nothing comes between).
    if (!time || Number.isNaN(time.getTime()) || time.getUTCFullYear() < 1) {
      context.addIssue({ code: 'custom', message: DATE_MESSAGE });
      return z.NEVER;
    }
    return time;
  });
}

/** `YYYY-MM-DD` as the instant its UTC day starts (`from`) or ends (`to`); undefined for no such day. */
function utcDay(value: string, bound: 'from' | 'to'): Date | undefined {
  const [year, month, date] = value.split('-').map(Number) as [number, number, number];
  // Date.UTC reads years 0–99 as 1900–1999: set the year on its own.
  const midnight = new Date(Date.UTC(2000, month - 1, date));
  midnight.setUTCFullYear(year);
  if (
    midnight.getUTCFullYear() !== year ||
    midnight.getUTCMonth() !== month - 1 ||
    midnight.getUTCDate() !== date
  ) {
    return undefined;
  }
  return bound === 'to' ? new Date(midnight.getTime() + DAY_MS) : midnight;
}

/** A whole number given as a JSON number or as the digits of a query string, with the lists' messages. */
function wholeNumber(min: number, max: number) {
  return z
    .union(
      [
        z.number(),
        z
          .string()
          .regex(/^[0-9]+$/)
          .transform(Number),
      ],
      { error: 'must be a whole number' },
    )
    .pipe(
      z
        .number()
        .int('must be a whole number')
        .min(min, `must be at least ${min}`)
        .max(max, `must be at most ${max}`),
    );
}

/** A single string (a query string given twice is a list, refused here). */
function singleString(what: string) {
  return z.string({
    error: (issue) => (issue.input === undefined ? 'is required' : `must be a single ${what}`),
  });
}

/**
 * The search request: `q` (1–500 characters), optional `platform`, `meeting_id`, `native_meeting_id`
 * (needs `platform`), `speaker`, `from`, `to`, and the lists' `limit` and `offset`. Takes query-string
 * values (numbers as digits) and JSON values alike, so GET /search and the MCP tool share it.
 */
export function searchQuerySchema(pages: SearchPageSizes) {
  return z
    .object({
      q: singleString('string')
        .transform((value) => value.trim())
        .pipe(
          z
            .string()
            .min(1, 'must not be empty')
            .max(SEARCH_TEXT_MAX_CHARS, `must be at most ${SEARCH_TEXT_MAX_CHARS} characters`),
        ),
      platform: z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}` }).optional(),
      meeting_id: wholeNumber(1, MAX_DB_INTEGER).optional(),
      native_meeting_id: singleString('string')
        .min(1, 'must not be empty')
        .max(200, 'is too long')
        .optional(),
      speaker: singleString('string')
        .transform((value) => value.trim())
        .pipe(z.string().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters'))
        .optional(),
      from: instant('from').optional(),
      to: instant('to').optional(),
      limit: wholeNumber(1, pages.maxLimit).default(pages.defaultLimit),
      offset: wholeNumber(0, Number.MAX_SAFE_INTEGER).default(0),
    })
    .superRefine((query, context) => {
      if (query.native_meeting_id !== undefined && query.platform === undefined) {
        context.addIssue({
          code: 'custom',
          path: ['native_meeting_id'],
          message: 'needs platform (the same id can exist on both platforms)',
        });
      }
      if (query.from && query.to && query.from.getTime() >= query.to.getTime()) {
        context.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
      }
    })
    .transform(
      (query): SearchQuery => ({
        text: query.q,
        platform: query.platform,
        meetingId: query.meeting_id,
        nativeMeetingId: query.native_meeting_id,
        speaker: query.speaker,
        from: query.from,
        to: query.to,
        limit: query.limit,
        offset: query.offset,
      }),
    );
}
