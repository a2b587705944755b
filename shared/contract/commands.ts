import { z } from 'zod';
import { TRANSCRIPTION_TASKS } from './meeting-status.js';

/**
 * What a running bot can be told, declared once: the API validates requests with these rules, the
 * meetings store keeps the settings, and the bot reads the same command from its command stream.
 */
export const LANGUAGE_CODE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export const languageCode = z
  .string({ error: 'must be a string' })
  .regex(LANGUAGE_CODE, 'must be a language code such as en or pt-BR');
export const botName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters');
export const transcriptionTask = z.enum(TRANSCRIPTION_TASKS, {
  error: `must be one of ${TRANSCRIPTION_TASKS.join(', ')}`,
});

/** The settings a running bot can change (PUT /bots/{platform}/{id}/config); only those given change. */
export const botSettingsChange = z.object({
  language: languageCode.optional(),
  task: transcriptionTask.optional(),
  botName: botName.optional(),
});
export type BotSettingsChange = z.infer<typeof botSettingsChange>;

export const leaveCommand = z.object({
  type: z.literal('leave'),
  reason: z.literal('stopped').default('stopped'),
  issuedAt: z.iso.datetime(),
});

export const reconfigureCommand = botSettingsChange.extend({
  type: z.literal('reconfigure'),
  issuedAt: z.iso.datetime(),
});

/** What a running bot is sent through the meeting's command stream. */
export const botCommand = z.discriminatedUnion('type', [leaveCommand, reconfigureCommand]);
export type BotCommand = z.infer<typeof botCommand>;
export type BotCommandInput = z.input<typeof botCommand>;
