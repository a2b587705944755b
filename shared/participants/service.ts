import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Knex } from '../infra/knex.js';
import { meetingHistory } from '../meetings/service.js';
import type { MeetingRecord } from '../meetings/store.js';
import type { TransitionRecord } from '../meetings/transitions-store.js';
import { listParticipantEvents, type ParticipantEventRecord } from './store.js';

export interface MeetingEventLog {
  meeting: MeetingRecord;
  transitions: TransitionRecord[];
  participantEvents: ParticipantEventRecord[];
}

/** GET /meetings/{id}/events: the user's meeting's status changes and participant events (404 otherwise). */
export async function meetingEventLog(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
): Promise<MeetingEventLog> {
  const { meeting, transitions } = await meetingHistory(db, auth, meetingId);
  return { meeting, transitions, participantEvents: await listParticipantEvents(db, meeting.id) };
}
