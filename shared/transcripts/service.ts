import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Knex } from '../infra/knex.js';
import type { Platform } from '../meetings/platforms.js';
import { latestMeeting } from '../meetings/service.js';
import type { MeetingRecord } from '../meetings/store.js';
import { listSegments, type SegmentRecord } from './store.js';

/** The transcript of the user's latest meeting with this platform and id. */
export async function transcriptOf(
  db: Knex,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<{ meeting: MeetingRecord; segments: SegmentRecord[] }> {
  const meeting = await latestMeeting(db, auth, platform, nativeMeetingId);
  return { meeting, segments: await listSegments(db, meeting.id) };
}
