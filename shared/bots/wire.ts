import { z } from 'zod';
import { transcriptionTask } from '../contract/commands.js';
import { PLATFORMS } from '../contract/platforms.js';

/** Bots as the API shows them (responses; also the OpenAPI document's schemas). */

export const botConfigAcceptedSchema = z
  .object({
    message: z.string(),
    meeting_id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
    language: z.string().nullable(),
    task: transcriptionTask,
    bot_name: z.string(),
  })
  .meta({ id: 'BotConfigAccepted' });

export const runningBotSchema = z
  .object({
    container_id: z.string().describe('Empty until the bot container has started.'),
    meeting_id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
  })
  .meta({ id: 'RunningBot' });

export const botStatusSchema = z
  .object({ running_bots: z.array(runningBotSchema) })
  .meta({ id: 'BotStatus' });

/** POST and DELETE /bots/{platform}/{native_meeting_id}/screen. */
export const screenAcceptedSchema = z
  .object({
    message: z.string(),
    meeting_id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
  })
  .meta({ id: 'ScreenAccepted' });
