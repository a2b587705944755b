import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { NotAcceptableError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { ResponseCache } from '../../../shared/infra/response-cache.js';
import {
  FORMAT_MEDIA_TYPES,
  TRANSCRIPT_FORMATS,
  type TranscriptFormat,
} from '../../../shared/transcripts/export-formats.js';
import { transcriptAnswer, transcriptExport } from '../../../shared/transcripts/service.js';
import { type AppState, requireAuth } from '../../context.js';
import { parseInput } from '../../middleware/validate.js';
import { meetingRefParams } from '../path-params.js';
import { negotiate } from './accept.js';

const transcriptQuery = z.object({
  format: z.enum(TRANSCRIPT_FORMATS, { error: `must be one of ${TRANSCRIPT_FORMATS.join(', ')}` }).optional(),
});

const OFFERS = TRANSCRIPT_FORMATS.map((id) => ({ id, mediaTypes: FORMAT_MEDIA_TYPES[id] }));
const PRODUCED = TRANSCRIPT_FORMATS.flatMap((id) => FORMAT_MEDIA_TYPES[id]).join(', ');

/** `?format=` when given, else what the Accept header prefers (JSON without one). */
function chosenFormat(
  query: unknown,
  accept: string | undefined,
): { format: TranscriptFormat; byAccept: boolean } {
  const { format } = parseInput(transcriptQuery, query, 'Query');
  if (format) return { format, byAccept: false };
  const negotiated = negotiate(accept, OFFERS);
  if (negotiated === undefined) {
    throw new NotAcceptableError(
      `Not acceptable: this endpoint answers ${PRODUCED}; or ask with ?format=${TRANSCRIPT_FORMATS.join('|')}`,
      { Vary: 'Accept' },
    );
  }
  return { format: negotiated, byAccept: true };
}

export function transcriptsRouter(deps: {
  db: Knex;
  requireUser: Middleware<AppState>;
  /** Built answers, keyed by the version of what they show. */
  cache: ResponseCache;
}): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/transcripts/:platform/:native_meeting_id', deps.requireUser, async (ctx) => {
    const params = parseInput(meetingRefParams, ctx.params, 'Path');
    const { format, byAccept } = chosenFormat(ctx.query, ctx.headers.accept);
    const auth = requireAuth(ctx);
    // A transcript is the meeting's words, written by whoever spoke: a browser must show it as the
    // type it is sent with (plain text stays text, never sniffed into HTML that runs a <script>).
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (format === 'json') {
      ctx.type = 'application/json';
      ctx.body = await transcriptAnswer(deps.db, deps.cache, auth, params.platform, params.native_meeting_id);
      return;
    }
    const answer = await transcriptExport(
      deps.db,
      deps.cache,
      auth,
      params.platform,
      params.native_meeting_id,
      format,
    );
    ctx.set('Content-Type', answer.contentType);
    ctx.set('Content-Disposition', `inline; filename="${answer.filename}"`);
    if (byAccept) ctx.set('Vary', 'Accept');
    ctx.body = answer.body;
  });
  return router;
}
