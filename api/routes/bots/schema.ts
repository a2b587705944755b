import { z } from 'zod';
import type { BotRequest } from '../../../shared/bots/service.js';
import type { BotSettingsChange } from '../../../shared/contract/commands.js';
import { botName, chatText, languageCode, transcriptionTask } from '../../../shared/contract/commands.js';
import { PLATFORMS } from '../../../shared/contract/platforms.js';
import { type PageSizes, pageQueryShape } from '../query-params.js';
import { webhookPartialSegments, webhookSecret, webhookUrl } from '../user/schema.js';

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
