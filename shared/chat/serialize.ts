import type { z } from 'zod';
import type { ChatMessageRecord } from './store.js';
import type { chatMessageSchema } from './wire.js';

export type ChatMessageJson = z.infer<typeof chatMessageSchema>;

/** A message as the API shows it (GET …/chat, the live stream, the `chat.message` webhook). */
export function chatMessageJson(message: ChatMessageRecord): ChatMessageJson {
  return {
    id: message.id,
    sender: message.sender,
    text: message.text,
    is_from_bot: message.fromBot,
    timestamp: message.sentAt.getTime(),
    sent_at: message.sentAt.toISOString(),
    start: message.start,
  };
}
