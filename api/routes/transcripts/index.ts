import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { Knex } from '../../../shared/infra/knex.js';
import type { ResponseCache } from '../../../shared/infra/response-cache.js';
import { transcriptAnswer } from '../../../shared/transcripts/service.js';
import { type AppState, requireAuth } from '../../context.js';
import { parseInput } from '../../middleware/validate.js';
import { meetingRefParams } from '../path-params.js';

export function transcriptsRouter(deps: {
  db: Knex;
  requireUser: Middleware<AppState>;
  /** Built answers, keyed by the version of what they show. */
  cache: ResponseCache;
}): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/transcripts/:platform/:native_meeting_id', deps.requireUser, async (ctx) => {
    const params = parseInput(meetingRefParams, ctx.params, 'Path');
    ctx.type = 'application/json';
    ctx.body = await transcriptAnswer(
      deps.db,
      deps.cache,
      requireAuth(ctx),
      params.platform,
      params.native_meeting_id,
    );
  });
  return router;
}
