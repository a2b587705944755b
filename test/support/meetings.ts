import type { Knex } from '../../shared/infra/knex.js';
import type { MeetingStatus } from '../../shared/meetings/status.js';
import { transitionMeeting } from '../../shared/meetings/transitions.js';

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
