import type { AuthenticatedKey } from '../../shared/accounts/keys-store.js';
import type { BotServiceDeps } from '../../shared/bots/service.js';
import type { SpeechDeps } from '../../shared/bots/speech.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { ResponseCache } from '../../shared/infra/response-cache.js';
import type { RateLimits } from '../middleware/rate-limits.js';
import type { PageSizes } from '../routes/query-params.js';
import type { SearchGate } from '../routes/search/gate.js';

/**
 * What the MCP tools and resources reach: the same services, with the same settings, as the REST
 * routes (api/app.ts hands both the same objects), so a tool is never a second path to the data.
 */
export interface McpDeps {
  db: Knex;
  /** The /bots routes' deps (sending, stopping, the chat), without the request's logger. */
  bots: Omit<BotServiceDeps, 'log'>;
  /** The speak routes' deps, without the request's logger. */
  speech: Omit<SpeechDeps, 'log'>;
  rateLimits: Pick<RateLimits, 'botAction'>;
  /** The REST reads' cache of built answers (meeting lists, transcripts). */
  cache: ResponseCache;
  /** LIST_DEFAULT_LIMIT and LIST_MAX_LIMIT */
  pageSizes: PageSizes;
  /** SEARCH_TIMEOUT_MS */
  searchTimeoutMs: number;
  /** The same searches' limits as GET /search (one gate for both: a tool is no way around them). */
  searchGate: SearchGate;
  /** MEETING_DATA_MAX_BYTES */
  meetingDataMaxBytes: number;
  /** RECORDING_MEDIA_LINK_TTL_SECONDS: how long recordings' media URLs work. */
  mediaLinkTtlSeconds: number;
}

/** One MCP request: whose key it came with, its logger, and where this API is reached (media links). */
export interface McpCall {
  deps: McpDeps;
  auth: AuthenticatedKey;
  log: Logger;
  /** PUBLIC_BASE_URL, or the address the request came to (publicBaseUrl). */
  baseUrl: string;
}
