import type { Knex } from '../infra/knex.js';
import { recordSegmentEvents } from '../webhooks/record-events.js';
import { findWebhookTargets } from '../webhooks/targets.js';
import { type SegmentRecord, type SegmentUpsert, upsertSegments } from './store.js';

export interface SavedSegments<Segment extends SegmentUpsert> {
  /** The segments that changed (a repeated copy writes nothing). */
  written: SegmentRecord[];
  /** Webhook events written with them. */
  events: number;
  /** Segments naming a meeting that doesn't exist: nothing was written for them. */
  unknownMeeting: Segment[];
}

/**
 * Stores a batch of segments by (meeting, segment id) and, in the same transaction, the webhook
 * events that report them. Segments of a meeting that has ended are kept (a stopped bot flushes its
 * last words while it leaves).
 */
export async function saveSegments<Segment extends SegmentUpsert>(
  db: Knex,
  segments: readonly Segment[],
): Promise<SavedSegments<Segment>> {
  // One read tells which meetings exist and where their webhooks go.
  const targets = await findWebhookTargets(db, [...new Set(segments.map((segment) => segment.meetingId))]);
  const known = segments.filter((segment) => targets.has(segment.meetingId));
  const unknownMeeting = segments.filter((segment) => !targets.has(segment.meetingId));
  const { written, events } = await db.transaction(async (trx) => {
    const changed = await upsertSegments(trx, known);
    return { written: changed, events: await recordSegmentEvents(trx, changed, targets) };
  });
  return { written, events, unknownMeeting };
}
