import type { Db } from '../infra/knex.js';
import type { TransitionRecord } from './transitions-store.js';

/**
 * What meetings tell the features above them (the webhook outbox) about their changes. The
 * receiver is called with the transaction that made the change, so what it writes commits or rolls
 * back with it; the processes choose it (api/app.ts, worker/events/domain-events.ts).
 */

/**
 * A status change recorded in a meeting's history (also one that keeps the status, e.g. `rejoined`):
 * the history row as written, with the time it was made (`source`: api, bot, worker, reconciler).
 */
export type MeetingStatusChanged = Omit<TransitionRecord, 'id' | 'createdAt'> & { at: Date };

export interface MeetingEvents {
  meetingStatusChanged(trx: Db, event: MeetingStatusChanged): Promise<void>;
}
