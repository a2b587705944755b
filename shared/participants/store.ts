import type { ParticipantEventType } from '../contract/events.js';
import type { Db } from '../infra/knex.js';

/** A participant change as stored (only the ones that changed something are shown: `applied`). */
export interface ParticipantEventRecord {
  id: number;
  meetingId: number;
  type: ParticipantEventType;
  name: string;
  at: Date;
  /** `at` on the transcript's time line (seconds). */
  start: number;
  createdAt: Date;
}

/** A bot's message: `eventKey` names it for good (its session and number). */
export interface ParticipantEventInsert {
  meetingId: number;
  eventKey: string;
  type: ParticipantEventType;
  name: string;
  at: Date;
  start: number;
}

/** One person in one meeting as the bots have seen them so far. */
export interface ParticipantRecord {
  meetingId: number;
  name: string;
  firstSeenAt: Date;
  lastSeenAt: Date;
  present: boolean;
  speaking: boolean;
}

interface EventRow {
  id: number | string;
  meeting_id: number;
  event_key: string;
  type: ParticipantEventType;
  name: string;
  at: Date;
  start_seconds: number;
  applied: boolean;
  created_at: Date;
}

interface ParticipantRow {
  meeting_id: number;
  name: string;
  first_seen_at: Date;
  last_seen_at: Date;
  present: boolean;
  speaking: boolean;
}

function toEvent(row: EventRow): ParticipantEventRecord {
  return {
    id: Number(row.id),
    meetingId: row.meeting_id,
    type: row.type,
    name: row.name,
    at: row.at,
    start: row.start_seconds,
    createdAt: row.created_at,
  };
}

function toParticipant(row: ParticipantRow): ParticipantRecord {
  return {
    meetingId: row.meeting_id,
    name: row.name,
    firstSeenAt: row.first_seen_at,
    lastSeenAt: row.last_seen_at,
    present: row.present,
    speaking: row.speaking,
  };
}

/** Which of these (meeting, key) pairs are stored already. */
export async function findStoredEventKeys(
  db: Db,
  events: readonly Pick<ParticipantEventInsert, 'meetingId' | 'eventKey'>[],
): Promise<Set<string>> {
  if (events.length === 0) return new Set();
  const rows: Array<{ meeting_id: number; event_key: string }> = await db('participant_events as e')
    .join(
      db.raw('unnest(?::integer[], ?::text[]) AS k(meeting_id, event_key)', [
        events.map((event) => event.meetingId),
        events.map((event) => event.eventKey),
      ]),
      (join) => join.on('e.meeting_id', 'k.meeting_id').andOn('e.event_key', 'k.event_key'),
    )
    .select('e.meeting_id', 'e.event_key');
  return new Set(rows.map((row) => `${row.meeting_id}\u0000${row.event_key}`));
}

/** The participants of these (meeting, name) pairs that have rows, locked for the transaction. */
export async function lockParticipants(
  db: Db,
  pairs: readonly { meetingId: number; name: string }[],
): Promise<ParticipantRecord[]> {
  if (pairs.length === 0) return [];
  const rows: ParticipantRow[] = await db('meeting_participants as p')
    .join(
      db.raw('unnest(?::integer[], ?::text[]) AS k(meeting_id, name)', [
        pairs.map((pair) => pair.meetingId),
        pairs.map((pair) => pair.name),
      ]),
      (join) => join.on('p.meeting_id', 'k.meeting_id').andOn('p.name', 'k.name'),
    )
    .select('p.*')
    .forUpdate();
  return rows.map(toParticipant);
}

/** Writes these participants' state (new rows or replacing their rows). */
export async function saveParticipants(db: Db, participants: readonly ParticipantRecord[]): Promise<void> {
  if (participants.length === 0) return;
  await db('meeting_participants')
    .insert(
      participants.map((p) => ({
        meeting_id: p.meetingId,
        name: p.name,
        first_seen_at: p.firstSeenAt,
        last_seen_at: p.lastSeenAt,
        present: p.present,
        speaking: p.speaking,
      })),
    )
    .onConflict(['meeting_id', 'name'])
    .merge();
}

/**
 * Stores the messages (every one, by key, so one delivered again is recognised) and returns the
 * applied ones, which are the meeting's events, in the order given.
 */
export async function insertParticipantEvents(
  db: Db,
  events: readonly (ParticipantEventInsert & { applied: boolean })[],
): Promise<ParticipantEventRecord[]> {
  if (events.length === 0) return [];
  const rows: EventRow[] = await db<EventRow>('participant_events')
    .insert(
      events.map((event) => ({
        meeting_id: event.meetingId,
        event_key: event.eventKey,
        type: event.type,
        name: event.name,
        at: event.at,
        start_seconds: event.start,
        applied: event.applied,
      })),
    )
    .onConflict(['meeting_id', 'event_key'])
    .ignore()
    .returning('*');
  return rows
    .filter((row) => row.applied)
    .map(toEvent)
    .sort((a, b) => a.id - b.id);
}

/** A meeting's events in the meeting's order (transcript time, then arrival). */
export async function listParticipantEvents(db: Db, meetingId: number): Promise<ParticipantEventRecord[]> {
  const rows: EventRow[] = await db<EventRow>('participant_events')
    .where({ meeting_id: meetingId, applied: true })
    .orderBy([{ column: 'start_seconds' }, { column: 'id' }]);
  return rows.map(toEvent);
}

/** For each meeting, its events stored after the one with id `after`, in store order, meeting by meeting. */
export async function listParticipantEventsSince(
  db: Db,
  positions: ReadonlyArray<{ meetingId: number; after: number }>,
): Promise<ParticipantEventRecord[]> {
  if (positions.length === 0) return [];
  const rows: EventRow[] = await db('participant_events as e')
    .join(
      db.raw('unnest(?::integer[], ?::bigint[]) AS p(meeting_id, after_id)', [
        positions.map((position) => position.meetingId),
        positions.map((position) => position.after),
      ]),
      (join) => join.on('e.meeting_id', 'p.meeting_id').andOn('e.id', '>', 'p.after_id'),
    )
    .where('e.applied', true)
    .select('e.*')
    .orderBy([{ column: 'e.meeting_id' }, { column: 'e.id' }]);
  return rows.map(toEvent);
}

/** Who was in the meeting, in the order they were first seen. */
export async function listParticipants(db: Db, meetingId: number): Promise<ParticipantRecord[]> {
  const rows: ParticipantRow[] = await db<ParticipantRow>('meeting_participants')
    .where({ meeting_id: meetingId })
    .orderBy([{ column: 'first_seen_at' }, { column: 'name' }]);
  return rows.map(toParticipant);
}
