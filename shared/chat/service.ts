import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Platform } from '../contract/platforms.js';
import type { Knex } from '../infra/knex.js';
import { getMeeting, latestMeeting } from '../meetings/service.js';
import type { MeetingRecord } from '../meetings/store.js';
import { type ChatMessageRecord, listChatMessages } from './store.js';

export interface ChatPage {
  meeting: MeetingRecord;
  messages: ChatMessageRecord[];
}

/** GET /meetings/{id}/chat: one page of the user's meeting's chat (404 `Meeting not found` otherwise). */
export async function meetingChat(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
  page: { limit: number; offset: number },
): Promise<ChatPage> {
  const meeting = await getMeeting(db, auth, meetingId);
  return { meeting, messages: await listChatMessages(db, meeting.id, page) };
}

/** GET /bots/{platform}/{native_meeting_id}/chat: the chat of the latest meeting with that id. */
export async function latestMeetingChat(
  db: Knex,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  page: { limit: number; offset: number },
): Promise<ChatPage> {
  const meeting = await latestMeeting(db, auth, platform, nativeMeetingId);
  return { meeting, messages: await listChatMessages(db, meeting.id, page) };
}
