import { deleteUserRow, lockUserForUpdate } from '../accounts/users-store.js';
import { ConflictError, NotFoundError } from '../infra/errors.js';
import { listLiveMeetings } from '../meetings/live-store.js';
import { type RecordingFilesDeps, removeRecordingFilesSoon } from './service.js';
import { findRecording, markRecordingsDeleting } from './store.js';

// Deleting a user takes their recordings' files, so it lives here, above accounts, meetings and
// recordings; the rows of everything else go by the database's cascades.

export const UserErasureErrors = {
  notFound: 'User not found',
  botsRunning: (meetingIds: readonly number[]) =>
    `The user still has bots running (meetings ${meetingIds.join(', ')}); stop them (DELETE /bots/{platform}/{native_meeting_id} with the user's key) and delete the user once they have left`,
} as const;

/**
 * Deletes a user with everything they have: API keys, meetings with their transcripts and history,
 * webhook settings and deliveries, and recordings, files included. Refused (409) while any of their
 * bots is still in flight, so nothing is deleted under a running bot (the user row is locked, as bot
 * launches lock it, so none starts meanwhile). The rows go in one transaction; the recordings are
 * marked `deleting` in it and outlive the user until their files are removed, right after the commit
 * or, if the storage fails, by the worker's recording sweep.
 */
export async function deleteUserAndData(deps: RecordingFilesDeps, userId: number): Promise<void> {
  const recordings = await deps.db.transaction(async (trx) => {
    if (!(await lockUserForUpdate(trx, userId, { deleting: true })))
      throw new NotFoundError(UserErasureErrors.notFound);
    const live = await listLiveMeetings(trx, userId);
    if (live.length > 0)
      throw new ConflictError(UserErasureErrors.botsRunning(live.map((meeting) => meeting.id)));
    const ids = await markRecordingsDeleting(trx, { userId });
    const marked = await Promise.all(ids.map((id) => findRecording(trx, id)));
    await deleteUserRow(trx, userId);
    return marked.filter((recording) => recording !== null);
  });
  deps.log.info({ userId, recordings: recordings.length }, 'user deleted with their data');
  await removeRecordingFilesSoon(deps, recordings);
}
