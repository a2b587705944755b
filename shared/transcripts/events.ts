import type { Db } from '../infra/knex.js';
import type { SegmentRecord } from './store.js';

/**
 * What transcripts tell the features above them (the webhook outbox) about new words. The receiver
 * is called with the transaction that wrote them, so what it writes commits or rolls back with them.
 */

/** Segments just written (new, or a mutable one changed), of one or more meetings, in write order. */
export interface TranscriptSegmentsWritten {
  segments: readonly SegmentRecord[];
}

export interface TranscriptEvents {
  transcriptSegmentsWritten(trx: Db, event: TranscriptSegmentsWritten): Promise<void>;
}
