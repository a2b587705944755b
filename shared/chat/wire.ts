import { z } from 'zod';
import { CHAT_TEXT_MAX_CHARS } from '../contract/commands.js';
import { isoTimestamp } from '../infra/timestamps.js';

/** The meeting chat as the API shows it (responses; also the OpenAPI document's schemas). */

export const chatMessageSchema = z
  .object({
    id: z.number().int().describe('Increases in the order messages were stored.'),
    sender: z.string().describe("The writer's display name; the bot's own messages carry its name."),
    text: z.string(),
    is_from_bot: z.boolean(),
    timestamp: z.number().int().describe('When it was written, epoch milliseconds (as Vexa answers).'),
    sent_at: isoTimestamp,
    start: z
      .number()
      .describe("When it was written on the transcript's time line: seconds, as segments' `start`."),
  })
  .meta({ id: 'ChatMessage' });

export const chatMessagesSchema = z
  .object({
    meeting_id: z.number().int(),
    messages: z.array(chatMessageSchema),
  })
  .meta({ id: 'ChatMessages' });

export const chatSendAcceptedSchema = z
  .object({
    message: z.string().describe('What happened, in words (as Vexa answers)'),
    meeting_id: z.number().int(),
    message_id: z
      .uuid()
      .describe("The command's id; the message appears in GET …/chat once the bot read it back."),
    text: z.string().max(CHAT_TEXT_MAX_CHARS),
    status: z.literal('queued'),
  })
  .meta({ id: 'ChatSendAccepted' });
