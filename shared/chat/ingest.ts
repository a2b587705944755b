import type { Knex } from '../infra/knex.js';
import { lockMeetingHistory, splitByExistingMeeting } from '../meetings/store.js';
import type { ChatEvents } from './events.js';
import { type ChatMessageInsert, type ChatMessageRecord, insertChatMessages } from './store.js';

export interface SavedChatMessages<Message extends ChatMessageInsert> {
  /** The messages stored now (one seen before writes nothing). */
  written: ChatMessageRecord[];
  /** Messages naming a meeting that doesn't exist (deleted meanwhile): nothing was written for them. */
  unknownMeeting: Message[];
}

/** Stores a batch of chat messages and tells `events` of the new ones, in one transaction. */
export async function saveChatMessages<Message extends ChatMessageInsert>(
  db: Knex,
  events: ChatEvents,
  messages: readonly Message[],
): Promise<SavedChatMessages<Message>> {
  const { known, unknownMeeting } = await splitByExistingMeeting(db, messages);
  const written = await db.transaction(async (trx) => {
    // Message ids are committed in the order they are given: live readers resume by them.
    await lockMeetingHistory(
      trx,
      known.map((message) => message.meetingId),
    );
    const stored = await insertChatMessages(trx, known);
    if (stored.length > 0) await events.chatMessagesWritten(trx, { messages: stored });
    return stored;
  });
  return { written, unknownMeeting };
}
