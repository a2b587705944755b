import type { MeetingStatus } from '../contract/meeting-status.js';
import type { Db } from '../infra/knex.js';

export interface TransitionRecord {
  id: number;
  meetingId: number;
  from: MeetingStatus | null;
  to: MeetingStatus;
  source: string;
  reason: string | null;
  detail: string | null;
  createdAt: Date;
}

interface TransitionRow {
  id: number;
  meeting_id: number;
  from_status: MeetingStatus | null;
  to_status: MeetingStatus;
  source: string;
  reason: string | null;
  detail: string | null;
  created_at: Date;
}

export interface NewTransition {
  meetingId: number;
  from: MeetingStatus | null;
  to: MeetingStatus;
  source: string;
  reason: string | null;
  detail?: string | null | undefined;
}

/** Stores one status change; recordStatusChange (transitions.ts) is what callers use. */
export async function insertTransition(db: Db, transition: NewTransition): Promise<TransitionRecord> {
  const [row] = await db<TransitionRow>('meeting_status_transitions')
    .insert({
      meeting_id: transition.meetingId,
      from_status: transition.from,
      to_status: transition.to,
      source: transition.source,
      reason: transition.reason,
      detail: transition.detail ?? null,
    })
    .returning('*');
  return toTransitionRecord(row!);
}

export async function listTransitions(db: Db, meetingId: number): Promise<TransitionRecord[]> {
  const rows = await db<TransitionRow>('meeting_status_transitions')
    .where({ meeting_id: meetingId })
    .orderBy('id');
  return rows.map(toTransitionRecord);
}

function toTransitionRecord(row: TransitionRow): TransitionRecord {
  return {
    id: row.id,
    meetingId: row.meeting_id,
    from: row.from_status,
    to: row.to_status,
    source: row.source,
    reason: row.reason,
    detail: row.detail,
    createdAt: row.created_at,
  };
}

/** For each meeting, its status changes after the one with id `after`, oldest first, meeting by meeting. */
export async function listTransitionsSince(
  db: Db,
  positions: ReadonlyArray<{ meetingId: number; after: number }>,
): Promise<TransitionRecord[]> {
  if (positions.length === 0) return [];
  const rows: TransitionRow[] = await db('meeting_status_transitions as t')
    .join(
      db.raw('unnest(?::integer[], ?::bigint[]) AS p(meeting_id, after_id)', [
        positions.map((position) => position.meetingId),
        positions.map((position) => position.after),
      ]),
      (join) => join.on('t.meeting_id', 'p.meeting_id').andOn('t.id', '>', 'p.after_id'),
    )
    .select('t.*')
    .orderBy([{ column: 't.meeting_id' }, { column: 't.id' }]);
  return rows.map(toTransitionRecord);
}

export async function findLatestTransition(db: Db, meetingId: number): Promise<TransitionRecord | undefined> {
  const row = await db<TransitionRow>('meeting_status_transitions')
    .where({ meeting_id: meetingId })
    .orderBy('id', 'desc')
    .first();
  return row && toTransitionRecord(row);
}
