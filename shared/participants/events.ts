import type { Db } from '../infra/knex.js';
import type { ParticipantEventRecord } from './store.js';

/**
 * What the participants feature tells the features above it (the webhook outbox) about new events,
 * inside the transaction that stored them, so what it writes commits or rolls back with them.
 */
export interface ParticipantEventsWritten {
  /** Events just stored (never one stored before), of one or more meetings, in store order. */
  events: readonly ParticipantEventRecord[];
}

export interface ParticipantEvents {
  participantEventsWritten(trx: Db, event: ParticipantEventsWritten): Promise<void>;
}
