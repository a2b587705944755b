import { sendChatMessage } from '../../../shared/bots/chat.js';
import { reconfigureBot, runningBots, stopBot } from '../../../shared/bots/running-bots.js';
import { moveScheduledBot } from '../../../shared/bots/scheduled-bots.js';
import {
  botConfigAcceptedJson,
  botStatusJson,
  chatSendAcceptedJson,
} from '../../../shared/bots/serialize.js';
import { type BotServiceDeps, createBot } from '../../../shared/bots/service.js';
import { botConfigAcceptedSchema, botStatusSchema } from '../../../shared/bots/wire.js';
import { chatMessageJson } from '../../../shared/chat/serialize.js';
import { latestMeetingChat } from '../../../shared/chat/service.js';
import { chatMessagesSchema, chatSendAcceptedSchema } from '../../../shared/chat/wire.js';
import { CHAT_TEXT_MAX_CHARS } from '../../../shared/contract/commands.js';
import { meetingJson } from '../../../shared/meetings/serialize.js';
import { meetingSchema } from '../../../shared/meetings/wire.js';
import { requireAuth } from '../../context.js';
import type { RateLimits } from '../../middleware/rate-limits.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { invalidMeetingRef, meetingRefParameters, meetingRefParams } from '../path-params.js';
import { limitParameter, offsetParameter } from '../query-params.js';
import { routesOf, stopAuth, userAuth } from '../route.js';
import {
  botRequestOf,
  chatPageQuery,
  createBotRequest,
  moveBotRequest,
  sendChatRequest,
  settingsChangeOf,
  updateBotConfigRequest,
} from './schema.js';

/** The bot routes' needs: the service's, and the bot action limit chat messages count against. */
export interface BotRouteDeps extends BotServiceDeps {
  rateLimits: Pick<RateLimits, 'botAction'>;
}

const route = routesOf<BotRouteDeps>();
const service = (deps: BotRouteDeps, log: BotServiceDeps['log']): BotServiceDeps => ({ ...deps, log });

export const botRoutes = [
  route({
    method: 'post',
    path: '/bots',
    auth: userAuth,
    body: createBotRequest,
    summary: 'Create Bot: send a bot to a meeting',
    responses: {
      201: {
        description:
          'The new meeting, status `requested`; with `join_at`, a scheduled bot that waits (its `data.join_at`) and launches then',
        ...json(meetingSchema),
      },
      400: error(
        'Invalid input; for a bad meeting id exactly `Invalid meeting ID format`; `join_at` without a time zone, in the past or beyond the horizon',
      ),
      ...commonErrors,
      409: error('A bot is already running or starting for this meeting'),
      429: error(
        '`Too many concurrent bots` (not for a scheduled bot: its limit is checked at `join_at`); for a scheduled bot, `Too many scheduled bots: at most N may wait for their join_at at once; …` (`MAX_SCHEDULED_BOTS_PER_USER`); or over the per-key request rate or failed-authentication limit (with `Retry-After`)',
      ),
      503: error(
        'The job queue is unreachable, nothing was started; or Postgres is unreachable for now (`Database unavailable; try again shortly`, with `Retry-After`); or `authenticated: true` on a deployment without BOT_ACCOUNT_KEY',
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
    summary:
      'Get Bot Status: the bots still running (scheduled bots waiting for their `join_at` are not listed: see GET /meetings)',
    responses: { 200: { description: 'Running bots', ...json(botStatusSchema) }, ...commonErrors },
    async handler(ctx, _input, deps) {
      ctx.body = botStatusJson(await runningBots(deps, requireAuth(ctx)));
    },
  }),

  route({
    method: 'delete',
    path: '/bots/:platform/:native_meeting_id',
    // Outside the key's request rate and bot action budget: a stop must always get through.
    auth: stopAuth,
    params: meetingRefParams,
    summary: 'Stop Bot',
    parameters: meetingRefParameters,
    responses: {
      202: {
        description:
          'The meeting, now `completed`; the bot is leaving (a scheduled bot not launched yet is cancelled: reason `schedule_cancelled`, no container is started)',
        ...json(meetingSchema),
      },
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
    method: 'patch',
    path: '/bots/:platform/:native_meeting_id',
    auth: userAuth,
    params: meetingRefParams,
    body: moveBotRequest,
    summary: 'Move Scheduled Bot: a new `join_at` for a bot that has not launched yet',
    parameters: meetingRefParameters,
    responses: {
      200: {
        description: 'The meeting, still `requested`, with the new `data.join_at`',
        ...json(meetingSchema),
      },
      400: error('Invalid input: `join_at` without a time zone, in the past or beyond the horizon'),
      ...commonErrors,
      404: error('`Bot not found`'),
      409: error('The bot is not scheduled or has already launched'),
    },
    async handler(ctx, { params, body }, deps) {
      const meeting = await moveScheduledBot(
        service(deps, ctx.state.log),
        requireAuth(ctx),
        params.platform,
        params.native_meeting_id,
        new Date(body.join_at),
      );
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

  route({
    method: 'post',
    path: '/bots/:platform/:native_meeting_id/chat',
    auth: userAuth,
    params: meetingRefParams,
    body: sendChatRequest,
    summary: 'Send Chat Message: the active bot writes `text` in the meeting chat',
    parameters: meetingRefParameters,
    responses: {
      202: {
        description:
          "Queued on the bot's command stream; it appears in GET …/chat (and as `chat.message`) once the bot read it back",
        ...json(chatSendAcceptedSchema),
      },
      400: error(`Invalid input: \`text\` is required, 1 to ${CHAT_TEXT_MAX_CHARS} characters`),
      ...commonErrors,
      404: error('`Bot not found`'),
      429: error(
        'Over the per-key bot action limit (`BOT_ACTIONS_PER_KEY_PER_MINUTE`, shared with speak and screen) or request rate, with `Retry-After`',
      ),
      503: error(
        'Redis is unreachable: the message was not sent; or Postgres is unreachable for now (`Database unavailable; try again shortly`, with `Retry-After`)',
      ),
    },
    async handler(ctx, { params, body }, deps) {
      const auth = requireAuth(ctx);
      await deps.rateLimits.botAction(auth.keyId);
      const queued = await sendChatMessage(
        service(deps, ctx.state.log),
        auth,
        params.platform,
        params.native_meeting_id,
        body.text,
      );
      ctx.status = 202;
      ctx.body = chatSendAcceptedJson(queued);
    },
  }),

  route({
    method: 'get',
    path: '/bots/:platform/:native_meeting_id/chat',
    auth: userAuth,
    params: meetingRefParams,
    query: (limits) => chatPageQuery(limits.pageSizes),
    summary:
      "Get Chat Messages: the chat the bot read in the latest meeting with this id, in the meeting's order",
    parameters: (limits) => [
      ...meetingRefParameters,
      limitParameter('limit', limits.pageSizes),
      offsetParameter('offset'),
    ],
    responses: {
      200: { description: 'Chat messages', ...json(chatMessagesSchema) },
      400: invalidMeetingRef,
      ...commonErrors,
      404: error('`Meeting not found`'),
    },
    async handler(ctx, { params, query }, deps) {
      const { meeting, messages } = await latestMeetingChat(
        deps.db,
        requireAuth(ctx),
        params.platform,
        params.native_meeting_id,
        query,
      );
      ctx.body = { meeting_id: meeting.id, messages: messages.map(chatMessageJson) };
    },
  }),
];
