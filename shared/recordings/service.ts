import type { Readable } from 'node:stream';
import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { activeMediaLinkSecret, rotateMediaLinkSecret } from '../accounts/media-link-secrets.js';
import { isTerminal } from '../contract/meeting-status.js';
import { waitAtMost } from '../infra/async.js';
import { AppError, ConflictError, NotFoundError, SpecErrors, UnauthorizedError } from '../infra/errors.js';
import { type Db, type Knex, MAX_DB_INTEGER } from '../infra/knex.js';
import type { Logger } from '../infra/logger.js';
import { findMeetingById, type MeetingRecord } from '../meetings/store.js';
import { type MediaLinks, mediaLinksOf, mediaTokenValid } from './media-links.js';
import {
  type ByteRange,
  RangeNotSatisfiableError,
  RecordingNotFoundError,
  type RecordingStorage,
} from './storage.js';
import {
  deleteRecordingRow,
  findRecording,
  listMeetingRecordings,
  markRecordingsDeleting,
  type RecordingRecord,
} from './store.js';

export const RecordingErrors = {
  notFound: 'Recording not found',
  stillRecording:
    'Recording is still being recorded; its media is available once the bot has left the meeting and the recording is ready',
  stillRunning:
    'Recording is still being recorded; stop the bot (DELETE /bots/{platform}/{native_meeting_id}) before deleting it',
  failedWithoutMedia: 'Recording failed and has no media; GET /recordings/{id} says why',
  mediaMissing: 'Recording media not found',
  storageUnavailable: 'Recording storage unavailable; try again shortly',
} as const;

/** How long a DELETE waits for the files to go before answering; the worker's sweep finishes the rest. */
const REMOVAL_WAIT_MS = 5000;
const STORAGE_RETRY_AFTER_SECONDS = '5';

export interface RecordingFilesDeps {
  db: Knex;
  storage: RecordingStorage;
  log: Logger;
}

export interface OwnedRecording {
  recording: RecordingRecord;
  meeting: MeetingRecord;
}

/** A recording a caller can see: attached to a meeting and not being deleted. */
function isVisible(recording: RecordingRecord | null): recording is RecordingRecord & { meetingId: number } {
  return recording !== null && recording.state !== 'deleting' && recording.meetingId !== null;
}

/** The key's user's recording with its meeting, or 404 (someone else's, absent, or being deleted). */
export async function getRecording(
  db: Db,
  auth: AuthenticatedKey,
  recordingId: number,
): Promise<OwnedRecording> {
  if (recordingId > MAX_DB_INTEGER) throw new NotFoundError(RecordingErrors.notFound);
  const recording = await findRecording(db, recordingId);
  if (!isVisible(recording) || recording.userId !== auth.user.id)
    throw new NotFoundError(RecordingErrors.notFound);
  const meeting = await findMeetingById(db, recording.meetingId);
  if (!meeting || meeting.userId !== auth.user.id) throw new NotFoundError(RecordingErrors.notFound);
  return { recording, meeting };
}

/**
 * The recording a media link's `?token=` opens, or null: no such recording (or being deleted), a
 * token not signed for it, expired, or signed before its owner's last rotation, or an owner who has
 * no live API key left or is gone.
 */
export async function recordingByMediaToken(
  db: Db,
  recordingId: number,
  token: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<RecordingRecord | null> {
  if (recordingId > MAX_DB_INTEGER) return null;
  const recording = await findRecording(db, recordingId);
  if (!isVisible(recording) || recording.userId === null) return null;
  const secret = await activeMediaLinkSecret(db, recording.userId);
  if (secret === null) return null;
  const expected = { recordingId, userId: recording.userId, nowSeconds };
  return mediaTokenValid(secret, token, expected) ? recording : null;
}

/**
 * Signs the media links of one answer to the key's user, good for `ttlSeconds` from now. 401 when
 * the user lost their last key (or was deleted) while the request ran.
 */
export async function mediaLinksFor(
  db: Db,
  auth: AuthenticatedKey,
  baseUrl: string,
  ttlSeconds: number,
): Promise<MediaLinks> {
  const secret = await activeMediaLinkSecret(db, auth.user.id);
  if (secret === null) throw new UnauthorizedError(SpecErrors.unauthorized);
  const expiresAt = Math.floor(Date.now() / 1000) + ttlSeconds;
  return mediaLinksOf(baseUrl, { userId: auth.user.id, secret }, expiresAt);
}

/** Refuses every media link the key's user was given until now; new answers carry new links. */
export async function rotateMediaLinks(db: Db, auth: AuthenticatedKey): Promise<void> {
  if (!(await rotateMediaLinkSecret(db, auth.user.id))) throw new UnauthorizedError(SpecErrors.unauthorized);
}

/** The user's recordings of these meetings, oldest first. */
export function meetingRecordings(db: Db, meetingIds: readonly number[]): Promise<RecordingRecord[]> {
  return listMeetingRecordings(db, meetingIds);
}

function storageUnavailable(): AppError {
  return new AppError(503, RecordingErrors.storageUnavailable, {
    'Retry-After': STORAGE_RETRY_AFTER_SECONDS,
  });
}

/** 416, with the `Content-Range: bytes *\/size` HTTP asks for. */
export function rangeNotSatisfiable(sizeBytes: number): AppError {
  return new AppError(416, `Range not satisfiable: the recording has ${sizeBytes} bytes`, {
    'Content-Range': `bytes */${sizeBytes}`,
  });
}

/**
 * The size of a recording's media, once there is media to serve: 409 while it is still being
 * recorded, 404 when it has no stored file, 503 (with Retry-After) when the storage can't be reached.
 */
export async function recordingMediaSize(
  deps: { storage: RecordingStorage; log: Logger },
  recording: RecordingRecord,
): Promise<number> {
  if (recording.state === 'recording') throw new ConflictError(RecordingErrors.stillRecording);
  let stored: { sizeBytes: number } | null = null;
  if (recording.storageKey !== '') {
    try {
      stored = await deps.storage.stat(recording.storageKey);
    } catch (error) {
      deps.log.warn({ err: error, recordingId: recording.id }, 'recording storage unavailable');
      throw storageUnavailable();
    }
  }
  if (stored) return stored.sizeBytes;
  if (recording.state === 'failed') throw new NotFoundError(RecordingErrors.failedWithoutMedia);
  deps.log.warn({ recordingId: recording.id }, 'a ready recording has no stored media');
  throw new NotFoundError(RecordingErrors.mediaMissing);
}

/** The media, whole or one byte range; the same answers as recordingMediaSize when it can't be read. */
export async function readRecordingMedia(
  deps: { storage: RecordingStorage; log: Logger },
  recording: RecordingRecord,
  range: ByteRange | undefined,
): Promise<Readable> {
  try {
    return await deps.storage.read(recording.storageKey, range);
  } catch (error) {
    // The file changed between its stat and this read (a DELETE, a retention sweep).
    if (error instanceof RecordingNotFoundError) throw new NotFoundError(RecordingErrors.mediaMissing);
    if (error instanceof RangeNotSatisfiableError) throw rangeNotSatisfiable(error.sizeBytes);
    deps.log.warn({ err: error, recordingId: recording.id }, 'recording storage unavailable');
    throw storageUnavailable();
  }
}

/**
 * Deletes one recording: gone for the user once the transaction commits (state `deleting`, detached
 * from its meeting), then its files and row are removed at once where the storage allows; what is
 * left (storage unreachable) is finished by the worker's sweep. Refused while its bot still records.
 */
export async function deleteRecording(
  deps: RecordingFilesDeps,
  auth: AuthenticatedKey,
  recordingId: number,
): Promise<void> {
  const detached = await deps.db.transaction(async (trx) => {
    const { recording, meeting } = await getRecording(trx, auth, recordingId);
    if (recording.state === 'recording' && !isTerminal(meeting.status))
      throw new ConflictError(RecordingErrors.stillRunning);
    const marked = await markRecordingsDeleting(trx, { ids: [recording.id] });
    if (marked.length === 0) throw new NotFoundError(RecordingErrors.notFound);
    return recording;
  });
  await removeRecordingFilesSoon(deps, [detached]);
}

/**
 * Marks the recordings of meetings being deleted as `deleting`, inside the caller's transaction;
 * returns them, for removeRecordingFiles once the transaction has committed.
 */
export async function detachMeetingRecordings(
  trx: Db,
  meetingIds: readonly number[],
): Promise<RecordingRecord[]> {
  if (meetingIds.length === 0) return [];
  const ids = await markRecordingsDeleting(trx, { meetingIds: [...meetingIds] });
  const detached = await Promise.all(ids.map((id) => findRecording(trx, id)));
  return detached.filter((recording) => recording !== null);
}

/**
 * Best effort, never throws: removes the files and then the rows of recordings marked `deleting`.
 * A recording whose files could not be removed keeps its row for the worker's sweep to retry.
 */
export async function removeRecordingFiles(
  deps: RecordingFilesDeps,
  recordings: readonly RecordingRecord[],
): Promise<void> {
  await Promise.all(
    recordings.map(async (recording) => {
      try {
        // A row that never got its key (created, then its naming interrupted) has no files.
        if (recording.storageKey !== '') await deps.storage.remove(recording.storageKey);
        await deleteRecordingRow(deps.db, recording.id);
      } catch (error) {
        deps.log.warn(
          { err: error, recordingId: recording.id },
          'could not remove a deleted recording yet; the worker will retry',
        );
      }
    }),
  );
}

/** A DELETE answers once the removal is done or this long has passed, whichever first. */
export function removeRecordingFilesSoon(
  deps: RecordingFilesDeps,
  recordings: readonly RecordingRecord[],
): Promise<void> {
  if (recordings.length === 0) return Promise.resolve();
  return waitAtMost(removeRecordingFiles(deps, recordings), REMOVAL_WAIT_MS);
}
