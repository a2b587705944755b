import { z } from 'zod';
import { PLATFORMS } from '../../../shared/contract/platforms.js';
import { SEARCH_TEXT_MAX_CHARS, searchQuerySchema } from '../../../shared/search/query.js';
import { searchResultsJson } from '../../../shared/search/serialize.js';
import { searchTranscripts } from '../../../shared/search/service.js';
import type { PageSizes } from '../../routes/query-params.js';
import { meetingIdShape, pageShape } from '../arguments.js';
import { defineTool, parseArguments } from '../tool.js';

const instant = z
  .string()
  .describe('A UTC date (2026-11-22: the whole day) or an ISO 8601 time with Z or an offset');

/** The search arguments as tools/list shows them; GET /search's own schema validates them. */
function searchShape(pageSizes: PageSizes) {
  return {
    q: z
      .string()
      .min(1)
      .max(SEARCH_TEXT_MAX_CHARS)
      .describe('Words (all must occur), "a phrase", `or` between alternatives, `-word` to exclude'),
    platform: z.enum(PLATFORMS).optional(),
    meeting_id: meetingIdShape.meeting_id.optional().describe('Only this meeting (its id)'),
    native_meeting_id: z
      .string()
      .optional()
      .describe('Only the meetings with this platform id (with platform)'),
    speaker: z
      .string()
      .optional()
      .describe('Only segments this speaker said (the whole name, any case); no meeting-data hits'),
    from: instant.optional().describe('Spoken (or, for meeting data, started) at or after'),
    to: instant.optional().describe('Spoken (or started) before; a date means up to its end'),
    ...pageShape(pageSizes),
  };
}

export const searchTool = defineTool({
  name: 'search',
  title: 'Search meetings',
  description:
    "GET /search: full-text search over your transcripts and your meetings' name, participants and notes, stemmed by each meeting's language. Hits best first (`hits`: field, rank, snippet with matches between <mark> and </mark>, the meeting, the segment with speaker and times), and `total`.",
  annotations: { readOnlyHint: true, openWorldHint: false },
  shape: (deps) => searchShape(deps.pageSizes),
  parse: (args, deps) => parseArguments(searchQuerySchema(deps.pageSizes), args),
  async call(query, { deps, auth }) {
    const result = await deps.searchGate.run(auth.user.id, () =>
      searchTranscripts(deps.db, auth.user.id, query, { timeoutMs: deps.searchTimeoutMs }),
    );
    return { json: searchResultsJson(result) };
  },
});
