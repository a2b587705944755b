import type { z } from 'zod';
import type { chatSendAcceptedSchema } from '../chat/wire.js';
import type { MeetingRecord } from '../meetings/store.js';
import type { QueuedChatMessage } from './chat.js';
import type { botConfigAcceptedSchema, botStatusSchema, screenAcceptedSchema } from './wire.js';

/** GET /bots/status. */
export function botStatusJson(meetings: readonly MeetingRecord[]): z.infer<typeof botStatusSchema> {
  return {
    running_bots: meetings.map((meeting) => ({
      container_id: meeting.botContainerId ?? '',
      meeting_id: meeting.id,
      platform: meeting.platform,
      native_meeting_id: meeting.nativeMeetingId,
    })),
  };
}

/** PUT /bots/{platform}/{native_meeting_id}/config: the settings now in force. */
export function botConfigAcceptedJson(meeting: MeetingRecord): z.infer<typeof botConfigAcceptedSchema> {
  return {
    message: 'Configuration update sent to the bot',
    meeting_id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
    language: meeting.language,
    task: meeting.task,
    bot_name: meeting.botName,
  };
}

/** POST /bots/{platform}/{native_meeting_id}/chat: the message as it went on the command stream. */
export function chatSendAcceptedJson(queued: QueuedChatMessage): z.infer<typeof chatSendAcceptedSchema> {
  return {
    message: 'Chat message sent to the bot',
    meeting_id: queued.meeting.id,
    message_id: queued.id,
    text: queued.text,
    status: 'queued',
  };
}

/** POST and DELETE /bots/{platform}/{native_meeting_id}/screen: what was sent to the bot. */
export function screenAcceptedJson(
  message: string,
  meeting: MeetingRecord,
): z.infer<typeof screenAcceptedSchema> {
  return {
    message,
    meeting_id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
  };
}
