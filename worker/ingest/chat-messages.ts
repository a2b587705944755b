import { saveChatMessages } from '../../shared/chat/ingest.js';
import type { ChatMessageInsert } from '../../shared/chat/store.js';
import { chatMessageEvent } from '../../shared/contract/events.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { domainEvents } from '../events/domain-events.js';
import { readBoundMessage } from './bound-identity.js';
import type { BatchHandler, DeadLetter, StreamMessage } from './stream-consumer.js';

/**
 * Stores a batch of the chat messages bots read, each in the meeting of the stream it came through.
 * A message already stored (the bot saw it twice, a relaunched bot read the panel again) writes
 * nothing and so reports nothing; new ones become `chat.message` webhooks in the same transaction
 * and wake the live streams after the commit.
 */
export function chatMessageHandler(db: Knex, log: Logger, announce: AnnounceChanges): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    const rows: Array<ChatMessageInsert & { message: StreamMessage }> = [];
    for (const message of messages) {
      const read = readBoundMessage(chatMessageEvent, message);
      if (!read.ok) {
        deadLetters.push({ message, reason: read.reason });
        continue;
      }
      const { value: chat, identity } = read.value;
      rows.push({
        message,
        meetingId: identity.meetingId,
        messageKey: chat.messageKey,
        sender: chat.sender,
        text: chat.text,
        fromBot: chat.fromBot,
        sentAt: new Date(chat.sentAt),
        start: chat.seconds,
      });
    }
    const { written, unknownMeeting } = await saveChatMessages(db, domainEvents, rows);
    for (const row of unknownMeeting) {
      deadLetters.push({ message: row.message, reason: `meeting ${row.meetingId} not found` });
    }
    log.debug({ received: messages.length, written: written.length }, 'chat messages ingested');
    await announce(written.map((message) => message.meetingId));
    return deadLetters;
  };
}
