import { type ScreenDeps, showImage, stopImage } from '../../../shared/bots/screen.js';
import { screenAcceptedJson } from '../../../shared/bots/serialize.js';
import { screenAcceptedSchema } from '../../../shared/bots/wire.js';
import { requireAuth } from '../../context.js';
import type { RateLimits } from '../../middleware/rate-limits.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { meetingRefParameters, meetingRefParams } from '../path-params.js';
import { routesOf, userAuth } from '../route.js';
import { screenBodyLimit } from './inline-media.js';
import { screenImageOf, screenRequest } from './schema.js';

export interface ScreenRouteDeps extends ScreenDeps {
  rateLimits: Pick<RateLimits, 'botAction'>;
}

const route = routesOf<ScreenRouteDeps>();
const service = (deps: ScreenRouteDeps, log: ScreenDeps['log']): ScreenDeps => ({ ...deps, log });
const common = {
  ...commonErrors,
  404: error('`Bot not found`'),
  429: error(
    'Over the per-key bot action limit (`BOT_ACTIONS_PER_KEY_PER_MINUTE`) or request rate, with `Retry-After`',
  ),
  503: error('Redis is unreachable: nothing was sent'),
};

export const screenRoutes = [
  route({
    method: 'post',
    path: '/bots/:platform/:native_meeting_id/screen',
    auth: userAuth,
    params: meetingRefParams,
    body: screenRequest,
    bodyLimit: screenBodyLimit,
    summary: "Show an image as the bot's camera (active bots only)",
    description:
      "The bot turns its camera on with the meeting's own toggle and shows the image until DELETE; a new request replaces it.",
    parameters: meetingRefParameters,
    responses: {
      202: { description: 'Sent to the bot', ...json(screenAcceptedSchema) },
      400: error(
        'Invalid input; or an `image_url` that breaks the webhook address rules, is too large or failed',
      ),
      ...common,
      413: error(
        `A body over ${screenBodyLimit.bytes} bytes (or REQUEST_BODY_LIMIT_BYTES if larger): \`Request body too large (limit N bytes); ${screenBodyLimit.hint}\``,
      ),
    },
    async handler(ctx, { params, body }, deps) {
      const auth = requireAuth(ctx);
      await deps.rateLimits.botAction(auth.keyId);
      const meeting = await showImage(
        service(deps, ctx.state.log),
        auth,
        params.platform,
        params.native_meeting_id,
        screenImageOf(body),
      );
      ctx.status = 202;
      ctx.body = screenAcceptedJson('Image sent to the bot', meeting);
    },
  }),

  route({
    method: 'delete',
    path: '/bots/:platform/:native_meeting_id/screen',
    auth: userAuth,
    params: meetingRefParams,
    summary: 'Stop showing the image: the bot turns its camera off',
    parameters: meetingRefParameters,
    responses: {
      202: { description: 'Sent to the bot', ...json(screenAcceptedSchema) },
      400: error('Invalid input'),
      ...common,
    },
    async handler(ctx, { params }, deps) {
      const auth = requireAuth(ctx);
      await deps.rateLimits.botAction(auth.keyId);
      const meeting = await stopImage(
        service(deps, ctx.state.log),
        auth,
        params.platform,
        params.native_meeting_id,
      );
      ctx.status = 202;
      ctx.body = screenAcceptedJson('Stop sent to the bot: it turns its camera off', meeting);
    },
  }),
];
