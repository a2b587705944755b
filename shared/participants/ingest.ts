import type { Knex } from '../infra/knex.js';
import { lockMeetingHistory, splitByExistingMeeting } from '../meetings/store.js';
import { applyParticipantChange } from './changes.js';
import type { ParticipantEvents } from './events.js';
import {
  findStoredEventKeys,
  insertParticipantEvents,
  lockParticipants,
  type ParticipantEventInsert,
  type ParticipantEventRecord,
  type ParticipantRecord,
  saveParticipants,
} from './store.js';

export interface SavedParticipantEvents<Message extends ParticipantEventInsert> {
  /** The events stored now: messages that changed something and were not stored before. */
  written: ParticipantEventRecord[];
  /** Messages naming a meeting that doesn't exist (deleted meanwhile): nothing was written for them. */
  unknownMeeting: Message[];
}

const keyOf = (meetingId: number, text: string) => `${meetingId}\u0000${text}`;

/**
 * Stores a batch of participant messages in the order given and tells `events` of the ones that
 * changed something, in one transaction: a message stored before (same key) is skipped, and one
 * that repeats the state (a relaunched bot's join of someone present) is kept but is no event.
 */
export async function saveParticipantEvents<Message extends ParticipantEventInsert>(
  db: Knex,
  events: ParticipantEvents,
  messages: readonly Message[],
): Promise<SavedParticipantEvents<Message>> {
  const { known, unknownMeeting } = await splitByExistingMeeting(db, messages);
  const written = await db.transaction(async (trx) => {
    // Event ids are committed in the order they are given (live readers resume by them), and the
    // participants' state is read and written by one writer of a meeting at a time.
    await lockMeetingHistory(
      trx,
      known.map((message) => message.meetingId),
    );
    const stored = await findStoredEventKeys(trx, known);
    const state = new Map<string, ParticipantRecord>();
    for (const participant of await lockParticipants(trx, known))
      state.set(keyOf(participant.meetingId, participant.name), participant);
    const rows: Array<ParticipantEventInsert & { applied: boolean }> = [];
    const changed = new Map<string, ParticipantRecord>();
    for (const message of known) {
      const eventKey = keyOf(message.meetingId, message.eventKey);
      if (stored.has(eventKey)) continue;
      stored.add(eventKey);
      const person = keyOf(message.meetingId, message.name);
      const { after, applied } = applyParticipantChange(state.get(person), message);
      state.set(person, after);
      changed.set(person, after);
      rows.push({
        meetingId: message.meetingId,
        eventKey: message.eventKey,
        type: message.type,
        name: message.name,
        at: message.at,
        start: message.start,
        applied,
      });
    }
    await saveParticipants(trx, [...changed.values()]);
    const inserted = await insertParticipantEvents(trx, rows);
    if (inserted.length > 0) await events.participantEventsWritten(trx, { events: inserted });
    return inserted;
  });
  return { written, unknownMeeting };
}
