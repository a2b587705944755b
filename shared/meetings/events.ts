import type { MeetingStatus } from '../contract/meeting-status.js';
import type { Db } from '../infra/knex.js';

/**
 * What meetings tell the features above them (the webhook outbox) about their changes. The
 * receiver is called with the transaction that made the change, so what it writes commits or rolls
 * back with it; the processes choose it (api/app.ts, worker/domain-events.ts).
 */

/** A status change recorded in a meeting's history (also one that keeps the status, e.g. `rejoined`). */
export interface MeetingStatusChanged {
  meetingId: number;
  from: MeetingStatus | null;
  to: MeetingStatus;
  /** Who moved the meeting: api, bot, worker, reconciler. */
  source: string;
  reason: string | null;
  detail: string | null;
  at: Date;
}

export interface MeetingEvents {
  meetingStatusChanged(trx: Db, event: MeetingStatusChanged): Promise<void>;
}
