import { botConfigAcceptedJson, botStatusJson } from '../../../shared/bots/serialize.js';
import {
  type BotServiceDeps,
  createBot,
  reconfigureBot,
  runningBots,
  stopBot,
} from '../../../shared/bots/service.js';
import { botConfigAcceptedSchema, botStatusSchema } from '../../../shared/bots/wire.js';
import { meetingJson } from '../../../shared/meetings/serialize.js';
import { meetingSchema } from '../../../shared/meetings/wire.js';
import { requireAuth } from '../../context.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { invalidMeetingRef, meetingRefParameters, meetingRefParams } from '../path-params.js';
import { routesOf, userAuth } from '../route.js';
import { botRequestOf, createBotRequest, settingsChangeOf, updateBotConfigRequest } from './schema.js';

const route = routesOf<BotServiceDeps>();
const service = (deps: BotServiceDeps, log: BotServiceDeps['log']): BotServiceDeps => ({ ...deps, log });

export const botRoutes = [
  route({
    method: 'post',
    path: '/bots',
    auth: userAuth,
    body: createBotRequest,
    summary: 'Create Bot: send a bot to a meeting',
    responses: {
      201: { description: 'The new meeting, status `requested`', ...json(meetingSchema) },
      400: error('Invalid input; for a bad meeting id exactly `Invalid meeting ID format`'),
      ...commonErrors,
      409: error('A bot is already running or starting for this meeting'),
      429: error(
        '`Too many concurrent bots`; or over the per-key request rate or failed-authentication limit (with `Retry-After`)',
      ),
      503: error(
        'The job queue is unreachable, nothing was started; or Postgres is unreachable for now (`Database unavailable; try again shortly`, with `Retry-After`)',
      ),
    },
    async handler(ctx, { body }, deps) {
      const meeting = await createBot(service(deps, ctx.state.log), requireAuth(ctx), botRequestOf(body));
      ctx.status = 201;
      ctx.body = meetingJson(meeting);
    },
  }),

  route({
    method: 'get',
    path: '/bots/status',
    auth: userAuth,
    summary: 'Get Bot Status: the bots still running',
    responses: { 200: { description: 'Running bots', ...json(botStatusSchema) }, ...commonErrors },
    async handler(ctx, _input, deps) {
      ctx.body = botStatusJson(await runningBots(deps, requireAuth(ctx)));
    },
  }),

  route({
    method: 'delete',
    path: '/bots/:platform/:native_meeting_id',
    auth: userAuth,
    params: meetingRefParams,
    summary: 'Stop Bot',
    parameters: meetingRefParameters,
    responses: {
      202: { description: 'The meeting, now `completed`; the bot is leaving', ...json(meetingSchema) },
      400: invalidMeetingRef,
      ...commonErrors,
      404: error('`Bot not found`'),
    },
    async handler(ctx, { params }, deps) {
      const meeting = await stopBot(
        service(deps, ctx.state.log),
        requireAuth(ctx),
        params.platform,
        params.native_meeting_id,
      );
      ctx.status = 202;
      ctx.body = meetingJson(meeting);
    },
  }),

  route({
    method: 'put',
    path: '/bots/:platform/:native_meeting_id/config',
    auth: userAuth,
    params: meetingRefParams,
    body: updateBotConfigRequest,
    summary: 'Update Bot Configuration (active bots only)',
    parameters: meetingRefParameters,
    responses: {
      202: { description: 'Stored and sent to the bot', ...json(botConfigAcceptedSchema) },
      400: error('Invalid input'),
      ...commonErrors,
      404: error('`Bot not found`'),
      503: error(
        'Redis is unreachable: the new settings were saved but not sent to the bot; or Postgres is unreachable for now (`Database unavailable; try again shortly`, with `Retry-After`)',
      ),
    },
    async handler(ctx, { params, body }, deps) {
      const meeting = await reconfigureBot(
        service(deps, ctx.state.log),
        requireAuth(ctx),
        params.platform,
        params.native_meeting_id,
        settingsChangeOf(body),
      );
      ctx.status = 202;
      ctx.body = botConfigAcceptedJson(meeting);
    },
  }),
];
