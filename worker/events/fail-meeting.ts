import type { Knex } from '../../shared/infra/knex.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { transitionMeeting } from '../../shared/meetings/transitions.js';
import { domainEvents } from './domain-events.js';

export interface FailMeetingDeps {
  db: Knex;
  /** Tells live streams and webhook dispatchers the meeting changed, after the commit. */
  announce: AnnounceChanges;
}

/**
 * Fails a live meeting on the worker's behalf with a machine-readable reason and a human detail,
 * and announces it. False when the meeting had already ended (someone else got there first).
 */
export async function failMeeting(
  deps: FailMeetingDeps,
  meetingId: number,
  reason: string,
  detail: string,
): Promise<boolean> {
  const moved = await transitionMeeting(deps.db, domainEvents, meetingId, {
    to: 'failed',
    source: 'worker',
    reason,
    detail,
  });
  if (moved) await deps.announce([meetingId]);
  return moved !== undefined;
}
