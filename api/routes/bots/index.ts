import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { botConfigAcceptedJson, botStatusJson } from '../../../shared/bots/serialize.js';
import {
  type BotServiceDeps,
  createBot,
  reconfigureBot,
  runningBots,
  stopBot,
} from '../../../shared/bots/service.js';
import { meetingJson } from '../../../shared/meetings/serialize.js';
import type { AppState } from '../../context.js';
import { requireAuth } from '../../context.js';
import { parseInput } from '../../middleware/validate.js';
import { meetingRefParams } from '../path-params.js';
import { botRequestOf, createBotRequest, settingsChangeOf, updateBotConfigRequest } from './schema.js';

export interface BotsRouterDeps extends BotServiceDeps {
  requireUser: Middleware<AppState>;
  jsonBody: Middleware<AppState>;
}

export function botsRouter(deps: BotsRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  const service = (log: BotServiceDeps['log']): BotServiceDeps => ({ ...deps, log });

  router.post('/bots', deps.requireUser, deps.jsonBody, async (ctx) => {
    const request = botRequestOf(parseInput(createBotRequest, ctx.state.body));
    const meeting = await createBot(service(ctx.state.log), requireAuth(ctx), request);
    ctx.status = 201;
    ctx.body = meetingJson(meeting);
  });

  router.get('/bots/status', deps.requireUser, async (ctx) => {
    ctx.body = botStatusJson(await runningBots(deps, requireAuth(ctx)));
  });

  router.delete('/bots/:platform/:native_meeting_id', deps.requireUser, async (ctx) => {
    const params = parseInput(meetingRefParams, ctx.params, 'Path');
    const meeting = await stopBot(
      service(ctx.state.log),
      requireAuth(ctx),
      params.platform,
      params.native_meeting_id,
    );
    ctx.status = 202;
    ctx.body = meetingJson(meeting);
  });

  router.put('/bots/:platform/:native_meeting_id/config', deps.requireUser, deps.jsonBody, async (ctx) => {
    const params = parseInput(meetingRefParams, ctx.params, 'Path');
    const change = settingsChangeOf(parseInput(updateBotConfigRequest, ctx.state.body));
    const meeting = await reconfigureBot(
      service(ctx.state.log),
      requireAuth(ctx),
      params.platform,
      params.native_meeting_id,
      change,
    );
    ctx.status = 202;
    ctx.body = botConfigAcceptedJson(meeting);
  });

  return router;
}
