import type { ChatMessageRecord } from '../../shared/chat/store.js';
import { listChatMessagesSince } from '../../shared/chat/store.js';
import type { Knex } from '../../shared/infra/knex.js';
import { findMeetingsProgress, type MeetingRecord } from '../../shared/meetings/store.js';
import { listTransitionsSince, type TransitionRecord } from '../../shared/meetings/transitions-store.js';
import { listParticipantEventsSince, type ParticipantEventRecord } from '../../shared/participants/store.js';
import { listSegmentsChangedSince, type SegmentRecord } from '../../shared/transcripts/store.js';
import type { LiveCursor } from './cursor.js';

/** What changed in one meeting after a cursor, as committed to Postgres. */
export interface MeetingChanges {
  /** Segments written after the cursor, in the order they were written. */
  segments: SegmentRecord[];
  /** Status changes after the cursor, oldest first. */
  transitions: TransitionRecord[];
  /** Chat messages stored after the cursor, in the order they were stored. */
  chat: ChatMessageRecord[];
  /** Participant events stored after the cursor, in the order they were stored. */
  participants: ParticipantEventRecord[];
  /** The meeting's status and end time now (undefined once deleted). */
  meeting: Pick<MeetingRecord, 'status' | 'endTime'> | undefined;
}

function groupByMeeting<Row extends { meetingId: number }>(rows: readonly Row[]): Map<number, Row[]> {
  const groups = new Map<number, Row[]>();
  for (const row of rows) {
    const group = groups.get(row.meetingId);
    if (group) group.push(row);
    else groups.set(row.meetingId, [row]);
  }
  return groups;
}

/**
 * What changed in each of these meetings after its cursor: the live readers' one read (SSE streams
 * and WebSocket feeds), five queries however many meetings it covers.
 */
export async function readLiveChanges(
  db: Knex,
  cursors: ReadonlyMap<number, LiveCursor>,
): Promise<Map<number, MeetingChanges>> {
  const at = (pick: (cursor: LiveCursor) => number) =>
    [...cursors].map(([meetingId, cursor]) => ({ meetingId, after: pick(cursor) }));
  const segments = groupByMeeting(
    await listSegmentsChangedSince(
      db,
      at((cursor) => cursor.segment),
    ),
  );
  const transitions = groupByMeeting(
    await listTransitionsSince(
      db,
      at((cursor) => cursor.transition),
    ),
  );
  const chat = groupByMeeting(
    await listChatMessagesSince(
      db,
      at((cursor) => cursor.chat),
    ),
  );
  const participants = groupByMeeting(
    await listParticipantEventsSince(
      db,
      at((cursor) => cursor.participant),
    ),
  );
  const progress = await findMeetingsProgress(db, [...cursors.keys()]);
  return new Map(
    [...cursors.keys()].map((meetingId) => [
      meetingId,
      {
        segments: segments.get(meetingId) ?? [],
        transitions: transitions.get(meetingId) ?? [],
        chat: chat.get(meetingId) ?? [],
        participants: participants.get(meetingId) ?? [],
        meeting: progress.get(meetingId),
      },
    ]),
  );
}
