import { UnrecoverableError } from 'bullmq';
import type { JobMeetingRef } from '../../shared/contract/jobs.js';
import type { Knex } from '../../shared/infra/knex.js';
import { findMeetingById, type MeetingRecord } from '../../shared/meetings/store.js';

/**
 * The meeting a job names, when every part of its reference agrees with Postgres. A job with a
 * well-formed payload may still not come from the API (an operator can add any job in Bull Board):
 * a user, platform or meeting id that disagree with the stored meeting make it fail at once,
 * before it touches anything. Undefined when no such meeting exists.
 */
export async function meetingNamedBy(db: Knex, ref: JobMeetingRef): Promise<MeetingRecord | undefined> {
  const meeting = await findMeetingById(db, ref.meetingId);
  if (!meeting) return undefined;
  if (
    meeting.userId !== ref.userId ||
    meeting.platform !== ref.platform ||
    meeting.nativeMeetingId !== ref.nativeMeetingId
  ) {
    throw new UnrecoverableError(`job does not match meeting ${ref.meetingId}: refused`);
  }
  return meeting;
}
