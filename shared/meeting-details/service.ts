import type { z } from 'zod';
import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { isTerminal } from '../contract/meeting-status.js';
import type { Platform } from '../contract/platforms.js';
import { ConflictError, NotFoundError, SpecErrors } from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import { getMeeting } from '../meetings/service.js';
import { deleteMeetings, listUserMeetingsFor, type MeetingRecord } from '../meetings/store.js';
import { listParticipants } from '../participants/store.js';
import {
  detachMeetingRecordings,
  mediaLinksFor,
  meetingRecordings,
  type RecordingFilesDeps,
  removeRecordingFilesSoon,
} from '../recordings/service.js';
import type { RecordingRecord } from '../recordings/store.js';
import { meetingDetailJson } from './serialize.js';
import type { meetingDetailSchema } from './wire.js';

// A meeting's read and deletion that take its recordings and participants with them live here,
// above those features: meetings/ knows nothing of recordings or participants.

/** GET /meetings/{id}: the meeting and its recordings. */
export async function meetingDetail(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
): Promise<{ meeting: MeetingRecord; recordings: RecordingRecord[] }> {
  const meeting = await getMeeting(db, auth, meetingId);
  return { meeting, recordings: await meetingRecordings(db, [meeting.id]) };
}

/**
 * GET /meetings/{id}'s answer: the meeting and its recordings, their media URLs under `baseUrl`
 * signed for `ttlSeconds`.
 */
export async function meetingDetailAnswer(
  db: Knex,
  auth: AuthenticatedKey,
  meetingId: number,
  links: { baseUrl: string; ttlSeconds: number },
): Promise<z.infer<typeof meetingDetailSchema>> {
  const { meeting, recordings } = await meetingDetail(db, auth, meetingId);
  const signed = await mediaLinksFor(db, auth, links.baseUrl, links.ttlSeconds);
  return meetingDetailJson(meeting, recordings, signed, await listParticipants(db, meeting.id));
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
