import { PLATFORMS } from '../../../shared/contract/platforms.js';
import type { Knex } from '../../../shared/infra/knex.js';
import { SEARCH_TEXT_MAX_CHARS, searchQuerySchema } from '../../../shared/search/query.js';
import { searchResultsJson } from '../../../shared/search/serialize.js';
import { searchTranscripts } from '../../../shared/search/service.js';
import { searchResultsSchema } from '../../../shared/search/wire.js';
import { requireAuth } from '../../context.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { limitParameter, offsetParameter } from '../query-params.js';
import { routesOf, userAuth } from '../route.js';
import type { SearchGate } from './gate.js';

export interface SearchRouteDeps {
  db: Knex;
  /** SEARCH_TIMEOUT_MS */
  timeoutMs: number;
  /** SEARCH_CONCURRENCY_PER_USER and SEARCH_CONCURRENCY */
  gate: SearchGate;
}

const route = routesOf<SearchRouteDeps>();

const dateOrTime = {
  type: 'string',
  description: 'A UTC date (2026-11-22: the whole day) or an ISO 8601 time with Z or an offset',
};

export const searchRoutes = [
  route({
    method: 'get',
    path: '/search',
    auth: userAuth,
    query: (limits) => searchQuerySchema(limits.pageSizes),
    summary: 'Search your transcripts and meetings’ name, participants and notes (beyond the spec)',
    description:
      'Full-text search (Postgres), stemmed by each meeting’s language. A hit is one segment, or one meeting’s ' +
      'name, participant list or notes, that matches the whole query; best first, with a snippet whose ' +
      'matches are between `<mark>` and `</mark>` (the rest HTML-escaped). See docs/api.md, "Search".',
    parameters: (limits) => [
      {
        name: 'q',
        in: 'query',
        required: true,
        schema: { type: 'string', minLength: 1, maxLength: SEARCH_TEXT_MAX_CHARS },
        description: 'Words (all must occur), "a phrase", `or` between alternatives, `-word` to exclude',
      },
      { name: 'platform', in: 'query', schema: { type: 'string', enum: [...PLATFORMS] } },
      { name: 'meeting_id', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 2147483647 } },
      {
        name: 'native_meeting_id',
        in: 'query',
        schema: { type: 'string' },
        description: 'Every meeting with this platform id (with `platform`)',
      },
      {
        name: 'speaker',
        in: 'query',
        schema: { type: 'string' },
        description: 'Only segments this speaker said (the whole name, any case); no meeting-data hits',
      },
      {
        name: 'from',
        in: 'query',
        schema: dateOrTime,
        description: `${dateOrTime.description}; at or after`,
      },
      {
        name: 'to',
        in: 'query',
        schema: dateOrTime,
        description: `${dateOrTime.description}; before (a date: to its end)`,
      },
      limitParameter('limit', limits.pageSizes),
      offsetParameter('offset'),
    ],
    responses: {
      200: { description: 'Hits, best first, and how many there are', ...json(searchResultsSchema) },
      400: error(
        'Invalid query, e.g. `q: must not be empty`, `q: has no words to search for …`, `from: must be an ISO 8601 date …`',
      ),
      ...commonErrors,
      404: error('`Meeting not found`: `meeting_id` or `native_meeting_id` names none of your meetings'),
      429: error(
        '`Too many searches at once for this user (at most N); wait for one to finish` (`SEARCH_CONCURRENCY_PER_USER`); or over the per-key request rate (`Rate limit exceeded: …`) or, from this address, over the failed-authentication limit (`Too many failed authentication attempts …`); `Retry-After` says when to try again',
      ),
      503: error(
        'The search took longer than `SEARCH_TIMEOUT_MS` (narrow it); or no place among the `SEARCH_CONCURRENCY` searches this server runs at once came free within `SEARCH_TIMEOUT_MS` (with `Retry-After`); or Postgres is unreachable for now (`Database unavailable; try again shortly`, with `Retry-After`)',
      ),
    },
    async handler(ctx, { query }, deps) {
      const userId = requireAuth(ctx).user.id;
      const result = await deps.gate.run(userId, () =>
        searchTranscripts(deps.db, userId, query, { timeoutMs: deps.timeoutMs }),
      );
      ctx.body = searchResultsJson(result);
    },
  }),
];
