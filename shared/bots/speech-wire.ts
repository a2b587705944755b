import { z } from 'zod';
import { PLATFORMS } from '../contract/platforms.js';
import type { SpeakAccepted } from './speech.js';

/** Speak requests as the API shows them (responses; also the OpenAPI document's schemas). */
export const speakAcceptedSchema = z
  .object({
    message: z.string(),
    request_id: z.string().describe('Names the request in the bot logs'),
    meeting_id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
    queued: z
      .number()
      .int()
      .describe('Requests the bot has waiting or playing, this one included (estimated from their length)'),
  })
  .meta({ id: 'SpeakAccepted' });

export const speakStoppedSchema = z
  .object({
    message: z.string(),
    meeting_id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
  })
  .meta({ id: 'SpeakStopped' });

export function speakAcceptedJson(accepted: SpeakAccepted): z.infer<typeof speakAcceptedSchema> {
  return {
    message: 'Speech request sent to the bot',
    request_id: accepted.requestId,
    meeting_id: accepted.meeting.id,
    platform: accepted.meeting.platform,
    native_meeting_id: accepted.meeting.nativeMeetingId,
    queued: accepted.queued,
  };
}

export function speakStoppedJson(meeting: SpeakAccepted['meeting']): z.infer<typeof speakStoppedSchema> {
  return {
    message: 'Stop sent to the bot: it stops speaking and mutes',
    meeting_id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
  };
}
