import type { Knex } from '../infra/knex.js';
import { lockMeetingHistory, splitByExistingMeeting } from '../meetings/store.js';
import type { TranscriptEvents } from './events.js';
import { type SegmentRecord, type SegmentUpsert, upsertSegments } from './store.js';

export interface SavedSegments<Segment extends SegmentUpsert> {
  /** The segments that changed (a repeated copy writes nothing). */
  written: SegmentRecord[];
  /** Segments naming a meeting that doesn't exist: nothing was written for them. */
  unknownMeeting: Segment[];
}

/**
 * Stores a batch of segments by (meeting, segment id) and tells `events` of those that changed, in
 * the same transaction (the webhook outbox writes their events with them). Segments of a meeting
 * that has ended are kept (a stopped bot flushes its last words while it leaves).
 */
export async function saveSegments<Segment extends SegmentUpsert>(
  db: Knex,
  events: TranscriptEvents,
  segments: readonly Segment[],
): Promise<SavedSegments<Segment>> {
  const { known, unknownMeeting } = await splitByExistingMeeting(db, segments);
  const written = await db.transaction(async (trx) => {
    // Change numbers are committed in the order they are given: live readers resume by them.
    await lockMeetingHistory(
      trx,
      known.map((segment) => segment.meetingId),
    );
    const changed = await upsertSegments(trx, known);
    if (changed.length > 0) await events.transcriptSegmentsWritten(trx, { segments: changed });
    return changed;
  });
  return { written, unknownMeeting };
}
