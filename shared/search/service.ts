import { BadRequestError, NotFoundError, ServiceUnavailableError, SpecErrors } from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import type { SearchQuery } from './query.js';
import { filteredMeetingIds, findHits, type HitRow, type MatchFilters, parseSearchText } from './store.js';

export type SearchHit = HitRow;

export interface SearchResult {
  /** Hits in all pages. */
  total: number;
  /** This page's hits, best first. */
  hits: SearchHit[];
}

export interface SearchOptions {
  /** How long the search may take before it is given up (SEARCH_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** The default of SEARCH_TIMEOUT_MS. */
export const DEFAULT_SEARCH_TIMEOUT_MS = 10_000;

// Postgres' SQLSTATE for a statement cancelled by statement_timeout.
const QUERY_CANCELED = '57014';

/**
 * Full-text search over one user's transcripts and meeting metadata (GET /search, the MCP search
 * tool): a page of hits, best first, and how many there are. Only the user's own meetings are read.
 * 400 for a query with no word to look for, 404 `Meeting not found` when a meeting filter names none
 * of the user's meetings, 503 when the search takes longer than `timeoutMs`.
 */
export async function searchTranscripts(
  db: Knex,
  userId: number,
  query: SearchQuery,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEARCH_TIMEOUT_MS;
  try {
    return await db.transaction(
      async (trx) => {
        // JIT compiling costs tens of milliseconds, more than these queries take to run.
        await trx.raw(`SELECT set_config('jit', 'off', true), set_config('statement_timeout', ?, true)`, [
          String(timeoutMs),
        ]);
        const parsed = await parseSearchText(trx, userId, query.text);
        if (!parsed.hasWords) {
          throw new BadRequestError('q: has no words to search for (only punctuation or symbols)');
        }
        // A parse that requires no word ("-budget": everything but) would read every row; a language
        // that drops the other words as stop words ("the -budget" in English) gives one.
        const queries = parsed.queries.filter((parse) => parse.indexable);
        const hasRequiredWord = parsed.queries.length > 0 ? queries.length > 0 : parsed.simpleIndexable;
        if (!hasRequiredWord) {
          throw new BadRequestError(
            'q: needs a word that must appear; a query of only excluded words (-word) matches nearly everything',
          );
        }
        const filters: MatchFilters = {
          platform: query.platform,
          speaker: query.speaker,
          from: query.from,
          to: query.to,
        };
        if (query.meetingId !== undefined || query.nativeMeetingId !== undefined) {
          filters.meetingIds = await filteredMeetingIds(trx, userId, query);
          if (filters.meetingIds.length === 0) throw new NotFoundError(SpecErrors.meetingNotFound);
        }
        // Nothing stored, or the words are all stop words of the languages the user's rows are in.
        if (queries.length === 0) return { total: 0, hits: [] };
        return findHits(trx, userId, queries, filters, { limit: query.limit, offset: query.offset });
      },
      { readOnly: true },
    );
  } catch (error) {
    if ((error as { code?: unknown }).code === QUERY_CANCELED) {
      throw new ServiceUnavailableError(
        `The search took longer than ${timeoutMs / 1000} s; narrow it (a phrase, fewer "or"s, a filter) or try again`,
      );
    }
    throw error;
  }
}
