import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { Knex } from '../../../shared/infra/knex.js';
import { transcriptJson } from '../../../shared/transcripts/serialize.js';
import { transcriptOf } from '../../../shared/transcripts/service.js';
import { type AppState, requireAuth } from '../../context.js';
import { parseInput } from '../../middleware/validate.js';
import { meetingRefParams } from '../path-params.js';

export function transcriptsRouter(deps: { db: Knex; requireUser: Middleware<AppState> }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/transcripts/:platform/:native_meeting_id', deps.requireUser, async (ctx) => {
    const params = parseInput(meetingRefParams, ctx.params, 'Path');
    const { meeting, segments } = await transcriptOf(
      deps.db,
      requireAuth(ctx),
      params.platform,
      params.native_meeting_id,
    );
    ctx.body = transcriptJson(meeting, segments);
  });
  return router;
}
