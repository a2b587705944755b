import type { Db } from '../infra/knex.js';
import type { ChatMessageRecord } from './store.js';

/**
 * What the chat tells the features above it (the webhook outbox) about new messages, inside the
 * transaction that stored them, so what it writes commits or rolls back with them.
 */
export interface ChatMessagesWritten {
  /** Messages just stored (never one stored before), of one or more meetings, in store order. */
  messages: readonly ChatMessageRecord[];
}

export interface ChatEvents {
  chatMessagesWritten(trx: Db, event: ChatMessagesWritten): Promise<void>;
}
