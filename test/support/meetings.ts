import type { MeetingStatus } from '../../shared/contract/meeting-status.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { MeetingRecord } from '../../shared/meetings/store.js';
import * as transitions from '../../shared/meetings/transitions.js';
import { domainEvents } from '../../worker/events/domain-events.js';

/**
 * The meetings' status writes as the worker makes them: each change is told to the worker's domain
 * events (the webhook outbox) in its transaction, as in production.
 */
export function transitionMeeting(
  db: Knex,
  meetingId: number,
  request: transitions.TransitionRequest,
): Promise<transitions.TransitionResult | undefined> {
  return transitions.transitionMeeting(db, domainEvents, meetingId, request);
}

export function recordRejoin(db: Knex, meeting: MeetingRecord, at: Date): Promise<boolean> {
  return transitions.recordRejoin(db, domainEvents, meeting, at);
}

const PATH: MeetingStatus[] = ['joining', 'awaiting_admission', 'active'];

/** Walks a meeting forward through the normal progression up to `status`, as a bot would. */
export async function advanceMeeting(
  db: Knex,
  meetingId: number,
  status: MeetingStatus,
  botContainerId = 'container-abc',
): Promise<void> {
  for (const step of PATH) {
    await transitionMeeting(db, meetingId, { to: step, source: 'test', botContainerId });
    if (step === status) return;
  }
}
