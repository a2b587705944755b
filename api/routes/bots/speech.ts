import { type SpeechDeps, speak, stopSpeaking } from '../../../shared/bots/speech.js';
import {
  speakAcceptedJson,
  speakAcceptedSchema,
  speakStoppedJson,
  speakStoppedSchema,
} from '../../../shared/bots/speech-wire.js';
import { requireAuth } from '../../context.js';
import type { RateLimits } from '../../middleware/rate-limits.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { meetingRefParameters, meetingRefParams } from '../path-params.js';
import { routesOf, userAuth } from '../route.js';
import { speakBodyLimit } from './inline-media.js';
import { speakRequest, speakRequestOf } from './schema.js';

export interface SpeechRouteDeps extends SpeechDeps {
  rateLimits: Pick<RateLimits, 'botAction'>;
}

const route = routesOf<SpeechRouteDeps>();
const service = (deps: SpeechRouteDeps, log: SpeechDeps['log']): SpeechDeps => ({ ...deps, log });

const tooMany = error(
  'Over the per-key bot action limit (`BOT_ACTIONS_PER_KEY_PER_MINUTE`) or request rate, with `Retry-After`; for speak also a full speech queue (`SPEAK_QUEUE_MAX`)',
);

export const speechRoutes = [
  route({
    method: 'post',
    path: '/bots/:platform/:native_meeting_id/speak',
    auth: userAuth,
    params: meetingRefParams,
    body: speakRequest,
    bodyLimit: speakBodyLimit,
    summary: 'Speak: the bot says a text or plays a clip in the meeting (active bots only)',
    description:
      "Requests play in order. The bot unmutes through the meeting's own microphone toggle only while it speaks and mutes after. Its own voice never enters the transcript.",
    parameters: meetingRefParameters,
    responses: {
      202: { description: 'Sent to the bot', ...json(speakAcceptedSchema) },
      400: error(
        'Invalid input; or an `audio_url` that breaks the webhook address rules, is too large or failed',
      ),
      ...commonErrors,
      404: error('`Bot not found`'),
      413: error(
        `A body over ${speakBodyLimit.bytes} bytes (or REQUEST_BODY_LIMIT_BYTES if larger): \`Request body too large (limit N bytes); ${speakBodyLimit.hint}\``,
      ),
      429: tooMany,
      503: error('Redis is unreachable: nothing was sent'),
    },
    async handler(ctx, { params, body }, deps) {
      const auth = requireAuth(ctx);
      await deps.rateLimits.botAction(auth.keyId);
      const accepted = await speak(
        service(deps, ctx.state.log),
        auth,
        params.platform,
        params.native_meeting_id,
        speakRequestOf(body),
      );
      ctx.status = 202;
      ctx.body = speakAcceptedJson(accepted);
    },
  }),

  route({
    method: 'delete',
    path: '/bots/:platform/:native_meeting_id/speak',
    auth: userAuth,
    params: meetingRefParams,
    summary: 'Stop speaking: interrupts the bot, drops its queued speech and mutes it',
    parameters: meetingRefParameters,
    responses: {
      202: { description: 'Sent to the bot', ...json(speakStoppedSchema) },
      400: error('Invalid input'),
      ...commonErrors,
      404: error('`Bot not found`'),
      429: tooMany,
      503: error('Redis is unreachable: nothing was sent'),
    },
    async handler(ctx, { params }, deps) {
      const auth = requireAuth(ctx);
      await deps.rateLimits.botAction(auth.keyId);
      const meeting = await stopSpeaking(
        service(deps, ctx.state.log),
        auth,
        params.platform,
        params.native_meeting_id,
      );
      ctx.status = 202;
      ctx.body = speakStoppedJson(meeting);
    },
  }),
];
