import { transitionMeeting } from '../shared/meetings/transitions.js';
import { domainEvents } from './domain-events.js';
import type { WorkerDeps } from './worker-deps.js';

/**
 * Fails a live meeting on the worker's behalf with a machine-readable reason and a human detail,
 * and announces it. False when the meeting had already ended (someone else got there first).
 */
export async function failMeeting(
  deps: Pick<WorkerDeps, 'db' | 'announce'>,
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
