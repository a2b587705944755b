import { participantEventMessage } from '../../shared/contract/events.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { saveParticipantEvents } from '../../shared/participants/ingest.js';
import type { ParticipantEventInsert } from '../../shared/participants/store.js';
import { domainEvents } from '../events/domain-events.js';
import { readBoundMessage } from './bound-identity.js';
import type { BatchHandler, DeadLetter, StreamMessage } from './stream-consumer.js';

/**
 * Stores a batch of the participant changes bots saw, each in the meeting of the stream it came
 * through, keyed by the bot session and the message's number: one delivered again writes nothing,
 * and one that repeats what is true (a relaunched bot's joins) is no event. New events become
 * `participant.*` webhooks in the same transaction and wake the live streams after the commit.
 */
export function participantEventHandler(db: Knex, log: Logger, announce: AnnounceChanges): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    const rows: Array<ParticipantEventInsert & { message: StreamMessage }> = [];
    for (const message of messages) {
      const read = readBoundMessage(participantEventMessage, message);
      if (!read.ok) {
        deadLetters.push({ message, reason: read.reason });
        continue;
      }
      const { value: event, identity } = read.value;
      rows.push({
        message,
        meetingId: identity.meetingId,
        eventKey: `${event.sessionId}:${event.seq}`,
        type: event.type,
        name: event.name,
        at: new Date(event.at),
        start: event.seconds,
      });
    }
    const { written, unknownMeeting } = await saveParticipantEvents(db, domainEvents, rows);
    for (const row of unknownMeeting) {
      deadLetters.push({ message: row.message, reason: `meeting ${row.meetingId} not found` });
    }
    log.debug({ received: messages.length, written: written.length }, 'participant events ingested');
    await announce([...new Set(written.map((event) => event.meetingId))]);
    return deadLetters;
  };
}
