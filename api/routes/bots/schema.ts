import { z } from 'zod';
import type { ScreenImage } from '../../../shared/bots/screen.js';
import type { BotRequest } from '../../../shared/bots/service.js';
import type { ClipFormat, SpeakRequest } from '../../../shared/bots/speech.js';
import type { BotSettingsChange } from '../../../shared/contract/commands.js';
import {
  base64LengthOf,
  botName,
  chatText,
  languageCode,
  SCREEN_IMAGE_MAX_BYTES,
  SPEAK_AUDIO_FORMATS,
  SPEAK_AUDIO_MAX_BYTES,
  SPEAK_TEXT_MAX_CHARS,
  transcriptionTask,
} from '../../../shared/contract/commands.js';
import { PLATFORMS } from '../../../shared/contract/platforms.js';
import { type PageSizes, pageQueryShape } from '../query-params.js';
import { webhookPartialSegments, webhookSecret, webhookUrl } from '../user/schema.js';

// Every request body of /bots and its actions (send, move, reconfigure, chat, speak, screen), in
// one place: the routes, the MCP tools and the OpenAPI document take them from here, with the
// functions that put a body in the services' terms.

const task = transcriptionTask;

/** An ISO 8601 date-time with its offset (`Z` or `+02:00`): a time without a zone is ambiguous. */
export const joinAt = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone (Z or ±hh:mm)' })
  .describe(
    'Schedule the bot: it joins at this time (in the future, at most BOT_SCHEDULE_HORIZON_DAYS ahead). Omit to send it at once.',
  );

/**
 * Shapes and types only: the platform-specific rules (meeting id format, Teams passcode, meeting URL
 * hosts) are checked afterwards so that the id format failure gets the spec's exact message.
 */
export const createBotRequest = z
  .object(
    {
      platform: z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}` }),
      native_meeting_id: z.string({ error: 'is required and must be a string' }).max(200, 'is too long'),
      passcode: z
        .string({ error: 'must be a string' })
        .min(1, 'must not be empty')
        .max(128, 'must be at most 128 characters')
        .optional(),
      meeting_url: z
        .string({ error: 'must be a string' })
        .max(2048, 'must be at most 2048 characters')
        .optional(),
      bot_name: botName.optional(),
      language: languageCode.optional().describe('Omit to let the bot detect the language.'),
      task: task.optional().describe('transcribe (default) or translate'),
      webhook_url: webhookUrl.optional().describe("This bot's own webhook endpoint, instead of the user's"),
      webhook_secret: webhookSecret
        .optional()
        .describe("Signs this bot's deliveries; defaults to the user's secret (GET /user/webhook)"),
      webhook_partial_segments: webhookPartialSegments.optional(),
      join_at: joinAt.optional(),
      authenticated: z
        .boolean({ error: 'must be a boolean' })
        .optional()
        .describe(
          "Sign in: the bot joins with one of the operator's bot accounts of the platform, under the account's name (bot_name is not used). The meeting fails with no_bot_account_available when none is free. 503 when the deployment has no BOT_ACCOUNT_KEY.",
        ),
      recording_enabled: z
        .boolean({ error: 'must be a boolean' })
        .optional()
        .describe(
          "Record the meeting's audio (GET /recordings/{id}/media plays it); the operator's RECORDING_ENABLED_DEFAULT when omitted",
        ),
    },
    { error: 'must be a JSON object' },
  )
  .refine((body) => body.webhook_url !== undefined || body.webhook_secret === undefined, {
    error: 'requires webhook_url',
    path: ['webhook_secret'],
  })
  .refine((body) => body.webhook_url !== undefined || body.webhook_partial_segments === undefined, {
    error: 'requires webhook_url',
    path: ['webhook_partial_segments'],
  })
  .meta({ id: 'CreateBotRequest' });
export type CreateBotRequest = z.infer<typeof createBotRequest>;

/** The request body in the service's terms. */
export function botRequestOf(body: CreateBotRequest): BotRequest {
  return {
    platform: body.platform,
    nativeMeetingId: body.native_meeting_id,
    passcode: body.passcode,
    meetingUrl: body.meeting_url,
    botName: body.bot_name,
    language: body.language,
    task: body.task,
    recordingEnabled: body.recording_enabled,
    authenticated: body.authenticated,
    joinAt: body.join_at === undefined ? undefined : new Date(body.join_at),
    webhook:
      body.webhook_url === undefined
        ? undefined
        : {
            url: body.webhook_url,
            secret: body.webhook_secret,
            partialSegments: body.webhook_partial_segments,
          },
  };
}

/** PATCH /bots/{platform}/{native_meeting_id}: moves a scheduled bot that has not launched yet. */
export const moveBotRequest = z
  .object({ join_at: joinAt }, { error: 'must be a JSON object' })
  .meta({ id: 'MoveBotRequest' });

export const updateBotConfigRequest = z
  .object(
    {
      language: languageCode.optional(),
      task: task.optional(),
      bot_name: botName.optional(),
    },
    { error: 'must be a JSON object' },
  )
  .refine((body) => body.language !== undefined || body.task !== undefined || body.bot_name !== undefined, {
    error: 'must contain at least one of language, task, bot_name',
  })
  .meta({ id: 'UpdateBotConfigRequest' });
export type UpdateBotConfigRequest = z.infer<typeof updateBotConfigRequest>;

export function settingsChangeOf(body: UpdateBotConfigRequest): BotSettingsChange {
  return { language: body.language, task: body.task, botName: body.bot_name };
}

/** POST /bots/{platform}/{native_meeting_id}/chat */
export const sendChatRequest = z
  .object({ text: chatText }, { error: 'must be a JSON object' })
  .meta({ id: 'SendChatRequest' });

/** GET /bots/{platform}/{native_meeting_id}/chat and GET /meetings/{id}/chat */
export function chatPageQuery(sizes: PageSizes) {
  return z.object(pageQueryShape(sizes));
}

// POST /bots/{platform}/{native_meeting_id}/speak

/** The clip formats a request may name: the bot's, and raw PCM (Vexa's `pcm`), wrapped as WAV by the API. */
const REQUEST_AUDIO_FORMATS = [...SPEAK_AUDIO_FORMATS, 'pcm'] as const;
const audioFormat = z.enum(REQUEST_AUDIO_FORMATS, {
  error: `must be one of ${REQUEST_AUDIO_FORMATS.join(', ')}`,
});

/** Vexa's default voice name: the engine's own default here. */
const AUTO_VOICE = 'auto';
/** Vexa's default sample rate of raw PCM. */
const DEFAULT_PCM_SAMPLE_RATE = 24_000;

export const speakRequest = z
  .object(
    {
      text: z
        .string({ error: 'must be a string' })
        .trim()
        .min(1, 'must not be empty')
        .max(SPEAK_TEXT_MAX_CHARS, `must be at most ${SPEAK_TEXT_MAX_CHARS} characters`)
        .optional()
        .describe('Synthesised in the bot (flite by default)'),
      voice: z
        .string({ error: 'must be a string' })
        .min(1)
        .max(64, 'must be at most 64 characters')
        .optional()
        .describe(
          "flite: slt, kal, kal16, awb or rms; an OpenAI-compatible engine: its voice names; `auto` (Vexa's default): the engine's default",
        ),
      language: languageCode.optional(),
      audio_base64: z
        .base64({ error: 'must be base64' })
        .max(base64LengthOf(SPEAK_AUDIO_MAX_BYTES), `must decode to at most ${SPEAK_AUDIO_MAX_BYTES} bytes`)
        .optional()
        .describe(
          `A clip to play as is, at most ${SPEAK_AUDIO_MAX_BYTES} bytes decoded (the route's body cap is sized for it)`,
        ),
      audio_url: z
        .url({ error: 'must be a URL' })
        .max(2048, 'must be at most 2048 characters')
        .optional()
        .describe('A clip the API fetches under the webhook address rules'),
      audio_format: audioFormat
        .optional()
        .describe(
          "The clip's format (default wav); `pcm` is raw signed 16-bit little-endian samples, sent on as WAV",
        ),
      format: audioFormat.optional().describe("Vexa's name for audio_format"),
      sample_rate: z
        .number({ error: 'must be a number' })
        .int('must be an integer')
        .min(8000, 'must be at least 8000')
        .max(96_000, 'must be at most 96000')
        .optional()
        .describe(`Hz, for pcm only (default ${DEFAULT_PCM_SAMPLE_RATE}, as Vexa)`),
      channels: z
        .number({ error: 'must be a number' })
        .int('must be an integer')
        .min(1, 'must be 1 or 2')
        .max(2, 'must be 1 or 2')
        .optional()
        .describe('For pcm only (default 1)'),
      provider: z
        .string({ error: 'must be a string' })
        .max(64)
        .optional()
        .describe(
          "Vexa's choice of speech engine: accepted and ignored (the operator's SPEECH_ENGINE decides)",
        ),
    },
    { error: 'must be a JSON object' },
  )
  .refine(
    (body) =>
      [body.text, body.audio_base64, body.audio_url].filter((value) => value !== undefined).length === 1,
    { error: 'must contain exactly one of text, audio_base64, audio_url' },
  )
  .refine((body) => body.audio_format === undefined || body.format === undefined, {
    error: 'is the same as audio_format: give one of them',
    path: ['format'],
  })
  .refine((body) => body.text === undefined || (body.audio_format ?? body.format) === undefined, {
    error: 'is only for audio_base64 or audio_url',
    path: ['audio_format'],
  })
  .refine(
    (body) =>
      (body.audio_format ?? body.format) === 'pcm' ||
      (body.sample_rate === undefined && body.channels === undefined),
    { error: 'sample_rate and channels are only for pcm audio', path: ['audio_format'] },
  )
  .meta({ id: 'SpeakRequest' });
export type SpeakRequestBody = z.infer<typeof speakRequest>;

export function speakRequestOf(body: SpeakRequestBody): SpeakRequest {
  const named = body.audio_format ?? body.format ?? 'wav';
  const format: ClipFormat =
    named === 'pcm'
      ? { pcm: { sampleRate: body.sample_rate ?? DEFAULT_PCM_SAMPLE_RATE, channels: body.channels ?? 1 } }
      : named;
  const content =
    body.text !== undefined
      ? { text: body.text }
      : body.audio_base64 !== undefined
        ? { audio: { format, base64: body.audio_base64 } }
        : { audioUrl: { url: body.audio_url as string, format } };
  const voice = body.voice === AUTO_VOICE ? undefined : body.voice;
  return { content, voice, language: body.language };
}

// POST /bots/{platform}/{native_meeting_id}/screen

/** What Vexa's `type` may name; only a still image is shown here. */
const VEXA_SCREEN_TYPES = ['image', 'video', 'url', 'html'] as const;

export const screenRequest = z
  .object(
    {
      image_base64: z
        .base64({ error: 'must be base64' })
        .max(base64LengthOf(SCREEN_IMAGE_MAX_BYTES), `must decode to at most ${SCREEN_IMAGE_MAX_BYTES} bytes`)
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

export function screenImageOf(body: ScreenRequestBody): ScreenImage {
  if (body.image_base64 !== undefined) return { base64: body.image_base64 };
  return { url: (body.image_url ?? body.url) as string };
}
