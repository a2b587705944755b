import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { AppError, ConflictError, NotFoundError, SpecErrors } from '../infra/errors.js';
import { type Knex, MAX_DB_INTEGER } from '../infra/knex.js';
import type { ResponseCache } from '../infra/response-cache.js';
import {
  detachMeetingRecordings,
  meetingRecordings,
  type RecordingFilesDeps,
  removeRecordingFilesSoon,
} from '../recordings/service.js';
import type { RecordingRecord } from '../recordings/store.js';
import type { Platform } from './platforms.js';
import { meetingJson } from './serialize.js';
import { isTerminal } from './status.js';
import {
  deleteMeetings,
  findLatestMeeting,
  findUserMeetingById,
  listMeetings,
  listUserMeetingsFor,
  type MeetingRecord,
  meetingListVersion,
  mergeMeetingData,
} from './store.js';
import { listTransitions, type TransitionRecord } from './transitions-store.js';

export async function getMeeting(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
): Promise<MeetingRecord> {
  if (meetingId > MAX_DB_INTEGER) throw new NotFoundError(SpecErrors.meetingNotFound);
  const meeting = await findUserMeetingById(db, auth.user.id, meetingId);
  if (!meeting) throw new NotFoundError(SpecErrors.meetingNotFound);
  return meeting;
}

/** GET /meetings/{id}: the meeting and its recordings. */
export async function meetingDetail(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
): Promise<{ meeting: MeetingRecord; recordings: RecordingRecord[] }> {
  const meeting = await getMeeting(db, auth, meetingId);
  return { meeting, recordings: await meetingRecordings(db, [meeting.id]) };
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

/** GET /meetings' answer as JSON bytes, built once per version of the user's meetings and page. */
export async function meetingListAnswer(
  db: Knex,
  cache: ResponseCache,
  auth: AuthenticatedKey,
  page: { limit: number; offset: number },
): Promise<Buffer> {
  const version = await meetingListVersion(db, auth.user.id);
  const key = `meetings:${auth.user.id}:${page.limit}:${page.offset}:${version}`;
  return cache.through(key, async () =>
    JSON.stringify({ meetings: (await listMeetings(db, auth.user.id, page)).map(meetingJson) }),
  );
}

/** A meeting's status history, oldest first. */
export async function meetingHistory(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
): Promise<{ meeting: MeetingRecord; transitions: TransitionRecord[] }> {
  const meeting = await getMeeting(db, auth, meetingId);
  return { meeting, transitions: await listTransitions(db, meeting.id) };
}

/** Only the members given change; a member set to null is removed. Acts on the latest such meeting. */
export async function updateMeetingData(
  db: Knex,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  patch: Record<string, unknown>,
  maxBytes: number,
): Promise<MeetingRecord> {
  const meeting = await latestMeeting(db, auth, platform, nativeMeetingId);
  const updated = await mergeMeetingData(db, meeting.id, patch, maxBytes);
  if (updated === 'tooLarge') {
    throw new AppError(
      413,
      `data: the meeting's data would take more than ${maxBytes} bytes; remove members (set them to null) or send less`,
    );
  }
  if (!updated) throw new NotFoundError(SpecErrors.meetingNotFound);
  return updated;
}

/**
 * Deletes every finished meeting the user has for this platform + native id, with its transcript,
 * history and recordings. Refused (409) while a bot is still in flight for it, so nothing is deleted
 * under a running bot. The recordings go with the meetings' rows (marked `deleting`, in the same
 * transaction); their files are removed right after, or by the worker's sweep if the storage fails.
 */
export async function deleteMeetingData(
  deps: RecordingFilesDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<number[]> {
  const { ids, recordings } = await deps.db.transaction(async (trx) => {
    const meetings = await listUserMeetingsFor(trx, auth.user.id, platform, nativeMeetingId);
    if (meetings.length === 0) throw new NotFoundError(SpecErrors.meetingNotFound);
    if (meetings.some((meeting) => !isTerminal(meeting.status))) {
      throw new ConflictError('A bot is still running for this meeting; stop it before deleting its data');
    }
    const ids = meetings.map((meeting) => meeting.id);
    const recordings = await detachMeetingRecordings(trx, ids);
    await deleteMeetings(trx, ids);
    return { ids, recordings };
  });
  await removeRecordingFilesSoon(deps, recordings);
  return ids;
}
