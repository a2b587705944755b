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

/** The longest chat message the API accepts and a bot sends (Meet's own input stops at 500). */
export const CHAT_TEXT_MAX_CHARS = 500;

export const chatText = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(CHAT_TEXT_MAX_CHARS, `must be at most ${CHAT_TEXT_MAX_CHARS} characters`);

/**
 * Write a message in the meeting chat. The command stream is read from its start by every bot of
 * the meeting, so a relaunched bot would write old messages again: a bot skips chat commands older
 * than CHAT_COMMAND_MAX_AGE_MS when it reads them, and the id lets it skip one it already sent.
 */
export const chatSendCommand = z.object({
  type: z.literal('chat.send'),
  id: z.uuid(),
  text: chatText,
  issuedAt: z.iso.datetime(),
});
export type ChatSendCommand = z.infer<typeof chatSendCommand>;
export const CHAT_COMMAND_MAX_AGE_MS = 120_000;

/** The longest text one speak request may carry (characters). */
/** The longest base64 text of at most `bytes` bytes (4 characters per 3 bytes, and room for padding). */
export function base64LengthOf(bytes: number): number {
  return Math.ceil((bytes * 4) / 3) + 4;
}

export const SPEAK_TEXT_MAX_CHARS = 2000;
/** The largest audio clip one speak request may carry, decoded (bytes). */
export const SPEAK_AUDIO_MAX_BYTES = 1024 * 1024;
/** Audio formats the bot's page decodes (Chromium's decodeAudioData). */
export const SPEAK_AUDIO_FORMATS = ['wav', 'mp3', 'ogg', 'opus', 'webm', 'flac', 'aac', 'm4a'] as const;
export type SpeakAudioFormat = (typeof SPEAK_AUDIO_FORMATS)[number];

/**
 * Say something in the meeting: text the bot synthesises, or a clip it plays as is. Requests play
 * in the order they were sent; the bot unmutes only while it speaks.
 */
export const speakCommand = z.object({
  type: z.literal('speak'),
  /** Names the request in the bot's logs and the API's answer. */
  requestId: z.string().min(1).max(64),
  text: z.string().min(1).max(SPEAK_TEXT_MAX_CHARS).optional(),
  voice: z.string().min(1).max(64).optional(),
  language: languageCode.optional(),
  audio: z
    .object({
      format: z.enum(SPEAK_AUDIO_FORMATS),
      base64: z.base64().max(base64LengthOf(SPEAK_AUDIO_MAX_BYTES)),
    })
    .optional(),
  issuedAt: z.iso.datetime(),
});
export type SpeakCommand = z.infer<typeof speakCommand>;

/** Stop speaking now: the clip playing stops, the queue is dropped, the microphone goes off. */
export const speakStopCommand = z.object({
  type: z.literal('speak.stop'),
  issuedAt: z.iso.datetime(),
});

/** The largest image one screen request may carry, decoded (bytes). */
export const SCREEN_IMAGE_MAX_BYTES = 1024 * 1024;

/** Show a still image as the bot's camera (its camera goes on); another request replaces it. */
export const screenShowCommand = z.object({
  type: z.literal('screen.show'),
  image: z.object({ base64: z.base64().max(base64LengthOf(SCREEN_IMAGE_MAX_BYTES)) }),
  issuedAt: z.iso.datetime(),
});

/** Stop showing the image: the bot's camera goes off. */
export const screenStopCommand = z.object({
  type: z.literal('screen.stop'),
  issuedAt: z.iso.datetime(),
});

/** What a running bot is sent through the meeting's command stream. */
export const botCommand = z.discriminatedUnion('type', [
  leaveCommand,
  reconfigureCommand,
  chatSendCommand,
  speakCommand,
  speakStopCommand,
  screenShowCommand,
  screenStopCommand,
]);
export type BotCommand = z.infer<typeof botCommand>;
export type BotCommandInput = z.input<typeof botCommand>;
