import type { Knex } from '../infra/knex.js';
import { findMeetingProgress, type MeetingRecord } from '../meetings/store.js';
import { listTransitionsSince, type TransitionRecord } from '../meetings/transitions-store.js';
import { listSegmentsChangedSince, type SegmentRecord } from './store.js';

/** A position in a meeting's history: the last status change and the last segment change seen. */
export interface LiveCursor {
  transition: number;
  segment: number;
}

export interface LiveChanges {
  /** Segments written after the cursor, in the order they were written. */
  segments: SegmentRecord[];
  /** Status changes after the cursor, oldest first. */
  transitions: TransitionRecord[];
  /** The meeting's status and end time now (undefined once deleted). */
  meeting: Pick<MeetingRecord, 'status' | 'endTime'> | undefined;
}

/** What changed in a meeting after `cursor`, as committed to Postgres (the live stream's one read). */
export async function liveChangesSince(
  db: Knex,
  meetingId: number,
  cursor: LiveCursor,
): Promise<LiveChanges> {
  const segments = await listSegmentsChangedSince(db, meetingId, cursor.segment);
  const transitions = await listTransitionsSince(db, meetingId, cursor.transition);
  return { segments, transitions, meeting: await findMeetingProgress(db, meetingId) };
}
