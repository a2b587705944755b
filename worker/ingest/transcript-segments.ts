import { transcriptSegmentMessage } from '../../shared/contract/events.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { saveSegments } from '../../shared/transcripts/ingest.js';
import type { SegmentRecord, SegmentUpsert } from '../../shared/transcripts/store.js';
import { domainEvents } from '../events/domain-events.js';
import { readBoundMessage } from './bound-identity.js';
import type { BatchHandler, DeadLetter, StreamMessage } from './stream-consumer.js';

/**
 * Applies a batch of the bots' segment messages in one statement: a mutable segment is updated in
 * place, a repeated message writes nothing (and so reports nothing to webhooks). Each segment goes
 * to the meeting of the stream it came through.
 */
export function transcriptSegmentHandler(
  db: Knex,
  log: Logger,
  announce: AnnounceChanges,
  onCommitted: (written: SegmentRecord[]) => void = () => undefined,
): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    const rows: Array<SegmentUpsert & { message: StreamMessage }> = [];
    for (const message of messages) {
      const read = readBoundMessage(transcriptSegmentMessage, message);
      if (!read.ok) {
        deadLetters.push({ message, reason: read.reason });
        continue;
      }
      const { value: segment, identity } = read.value;
      rows.push({
        message,
        meetingId: identity.meetingId,
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
    const { written, unknownMeeting } = await saveSegments(db, domainEvents, rows);
    for (const row of unknownMeeting) {
      deadLetters.push({ message: row.message, reason: `meeting ${row.meetingId} not found` });
    }
    onCommitted(written);
    log.debug({ received: messages.length, written: written.length }, 'segments ingested');
    await announce(written.map((segment) => segment.meetingId));
    return deadLetters;
  };
}
