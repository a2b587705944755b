import { z } from 'zod';
import { type ScreenDeps, type ScreenImage, showImage, stopImage } from '../../../shared/bots/screen.js';
import { SCREEN_IMAGE_MAX_BYTES } from '../../../shared/contract/commands.js';
import { PLATFORMS } from '../../../shared/contract/platforms.js';
import type { MeetingRecord } from '../../../shared/meetings/store.js';
import { requireAuth } from '../../context.js';
import type { RateLimits } from '../../middleware/rate-limits.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { meetingRefParameters, meetingRefParams } from '../path-params.js';
import { routesOf, userAuth } from '../route.js';
import { screenBodyLimit } from './inline-media.js';

export interface ScreenRouteDeps extends ScreenDeps {
  rateLimits: Pick<RateLimits, 'botAction'>;
}

/** What Vexa's `type` may name; only a still image is shown here. */
const VEXA_SCREEN_TYPES = ['image', 'video', 'url', 'html'] as const;

export const screenRequest = z
  .object(
    {
      image_base64: z
        .base64({ error: 'must be base64' })
        .max(
          Math.ceil((SCREEN_IMAGE_MAX_BYTES * 4) / 3) + 4,
          `must decode to at most ${SCREEN_IMAGE_MAX_BYTES} bytes`,
        )
        .optional()
        .describe(
          `PNG, JPEG, GIF or WebP, at most ${SCREEN_IMAGE_MAX_BYTES} bytes decoded (the route's body cap is sized for it)`,
        ),
      image_url: z
        .url({ error: 'must be a URL' })
        .max(2048, 'must be at most 2048 characters')
        .optional()
        .describe('An image the API fetches under the webhook address rules (at most 1 MiB)'),
      type: z
        .enum(VEXA_SCREEN_TYPES, { error: `must be one of ${VEXA_SCREEN_TYPES.join(', ')}` })
        .refine((type) => type === 'image', {
          error: 'only image is supported here (a still image shown as the bot camera)',
        })
        .optional()
        .describe("Vexa's shape: `image` with `url` (or image_base64); video, url and html are refused"),
      url: z
        .url({ error: 'must be a URL' })
        .max(2048, 'must be at most 2048 characters')
        .optional()
        .describe("Vexa's name for image_url (with `type: image`)"),
      start_share: z
        .boolean({ error: 'must be a boolean' })
        .optional()
        .describe('Vexa: accepted and ignored (the image is shown as the camera, never as a share)'),
    },
    { error: 'must be a JSON object' },
  )
  .refine((body) => body.url === undefined || body.type !== undefined, {
    error: 'needs type: image (or send image_url)',
    path: ['url'],
  })
  .refine(
    (body) =>
      [body.image_base64, body.image_url, body.url].filter((value) => value !== undefined).length === 1,
    { error: "must contain exactly one of image_base64, image_url (or Vexa's type: image with url)" },
  )
  .meta({ id: 'ScreenRequest' });
export type ScreenRequestBody = z.infer<typeof screenRequest>;

function screenImageOf(body: ScreenRequestBody): ScreenImage {
  if (body.image_base64 !== undefined) return { base64: body.image_base64 };
  return { url: (body.image_url ?? body.url) as string };
}

export const screenAcceptedSchema = z
  .object({
    message: z.string(),
    meeting_id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
  })
  .meta({ id: 'ScreenAccepted' });

function accepted(message: string, meeting: MeetingRecord): z.infer<typeof screenAcceptedSchema> {
  return {
    message,
    meeting_id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
  };
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
      ctx.body = accepted('Image sent to the bot', meeting);
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
      ctx.body = accepted('Stop sent to the bot: it turns its camera off', meeting);
    },
  }),
];
