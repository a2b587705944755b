import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Knex } from '../infra/knex.js';
import {
  deleteMeetings,
  findLatestMeeting,
  findUserMeetingById,
  listUserMeetingsFor,
  type MeetingRecord,
  mergeMeetingData,
} from './store.js';
import { type SegmentRecord, listSegments } from '../transcripts/store.js';
import { isTerminal } from './status.js';
import type { Platform } from './platforms.js';
import { ConflictError, NotFoundError, SpecErrors } from '../infra/errors.js';

/** Meeting ids are Postgres `integer`s; a larger number names no meeting. */
const MAX_MEETING_ID = 2_147_483_647;

export async function getMeeting(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
): Promise<MeetingRecord> {
  if (meetingId > MAX_MEETING_ID) throw new NotFoundError(SpecErrors.meetingNotFound);
  const meeting = await findUserMeetingById(db, auth.user.id, meetingId);
  if (!meeting) throw new NotFoundError(SpecErrors.meetingNotFound);
  return meeting;
}

export async function latestMeeting(
  db: Knex,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord> {
  const meeting = await findLatestMeeting(db, auth.user.id, platform, nativeMeetingId);
  if (!meeting) throw new NotFoundError(SpecErrors.meetingNotFound);
  return meeting;
}

/** Only the members given change; a member set to null is removed. Acts on the latest such meeting. */
export async function updateMeetingData(
  db: Knex,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  patch: Record<string, unknown>,
): Promise<MeetingRecord> {
  const meeting = await latestMeeting(db, auth, platform, nativeMeetingId);
  const updated = await mergeMeetingData(db, meeting.id, patch);
  if (!updated) throw new NotFoundError(SpecErrors.meetingNotFound);
  return updated;
}

export async function transcriptOf(
  db: Knex,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<{ meeting: MeetingRecord; segments: SegmentRecord[] }> {
  const meeting = await latestMeeting(db, auth, platform, nativeMeetingId);
  return { meeting, segments: await listSegments(db, meeting.id) };
}

/**
 * Deletes every finished meeting the user has for this platform + native id, with its transcript
 * and history. Refused (409) while a bot is still in flight for it, so nothing is deleted under a
 * running bot.
 */
export async function deleteMeetingData(
  db: Knex,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<number[]> {
  return db.transaction(async (trx) => {
    const meetings = await listUserMeetingsFor(trx, auth.user.id, platform, nativeMeetingId);
    if (meetings.length === 0) throw new NotFoundError(SpecErrors.meetingNotFound);
    if (meetings.some((meeting) => !isTerminal(meeting.status))) {
      throw new ConflictError('A bot is still running for this meeting; stop it before deleting its data');
    }
    const ids = meetings.map((meeting) => meeting.id);
    await deleteMeetings(trx, ids);
    return ids;
  });
}
