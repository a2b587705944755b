import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Platform } from '../contract/platforms.js';
import { AppError, NotFoundError, SpecErrors } from '../infra/errors.js';
import { type Knex, MAX_DB_INTEGER } from '../infra/knex.js';
import type { ResponseCache } from '../infra/response-cache.js';
import { meetingJson } from './serialize.js';
import {
  findLatestMeeting,
  findUserMeetingById,
  listMeetings,
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
