import { transcriptSegmentMessage, type TranscriptSegmentMessage } from '../../shared/contract/events.js';
import type { Knex } from '../../shared/infra/knex.js';
import { type SegmentUpsert, upsertSegments } from '../../shared/transcripts/store.js';
import { findWebhookTargets, recordSegmentDeliveries } from '../../shared/webhooks/outbox.js';
import type { Logger } from '../../shared/infra/logger.js';
import { parseStreamJson } from '../../shared/contract/stream-codec.js';
import type { BatchHandler, DeadLetter } from './stream-consumer.js';

/**
 * Upserts a batch of segments by (meeting, segment id) in one statement: a mutable segment is
 * updated in place, a repeated message writes nothing (and so reports nothing to webhooks). Segments of a meeting that has ended are
 * kept (a stopped bot flushes its last words while it leaves).
 */
export function transcriptSegmentHandler(
  db: Knex,
  log: Logger,
  announce: (meetingIds: Iterable<number>) => Promise<unknown>,
): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    const valid: Array<{ id: string; segment: TranscriptSegmentMessage }> = [];
    for (const message of messages) {
      const parsed = parseStreamJson(transcriptSegmentMessage, message.data);
      if (parsed.ok) valid.push({ id: message.id, segment: parsed.value });
      else deadLetters.push({ id: message.id, reason: parsed.reason });
    }
    const meetingIds = [...new Set(valid.map(({ segment }) => segment.meetingId))];
    // One read tells which meetings exist and where their webhooks go.
    const targets = await findWebhookTargets(db, meetingIds);
    const rows: SegmentUpsert[] = [];
    for (const { id, segment } of valid) {
      if (!targets.has(segment.meetingId)) {
        deadLetters.push({ id, reason: `meeting ${segment.meetingId} not found` });
        continue;
      }
      rows.push({
        meetingId: segment.meetingId,
        segmentId: segment.segmentId,
        start: segment.start,
        end: segment.end,
        text: segment.text,
        speaker: segment.speaker,
        language: segment.language,
        absoluteStartTime: new Date(segment.absoluteStartTime),
        absoluteEndTime: new Date(segment.absoluteEndTime),
        final: segment.final,
      });
    }
    // The segments and the webhook deliveries that report them commit together.
    const { written, deliveries } = await db.transaction(async (trx) => {
      const changed = await upsertSegments(trx, rows);
      return { written: changed, deliveries: await recordSegmentDeliveries(trx, changed, targets) };
    });
    log.debug({ received: messages.length, written: written.length, deliveries }, 'segments ingested');
    await announce(written.map((segment) => segment.meetingId));
    return deadLetters;
  };
}
