import type { Db, Knex } from '../infra/knex.js';
import { TransientError } from '../infra/store-errors.js';
import type { RecordingEvents, RecordingReady } from './events.js';
import type { RecordingStorage } from './storage.js';
import {
  findRecording,
  markRecordingFailed,
  markRecordingReady,
  RECORDING_CONTENT_TYPE,
  type RecordingRecord,
  storedChunks,
} from './store.js';

/**
 * Runs a storage call; its failure is "not now" (the store unreachable or refusing for a while), so
 * callers retry instead of giving up on the audio.
 */
export async function inStorage<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new TransientError(`recording storage: ${what} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** True once the bot said which chunk was its last and every chunk up to it is stored. */
export function hasEveryChunk(
  recording: Pick<RecordingRecord, 'finalSeq'>,
  seqs: readonly number[],
): boolean {
  return recording.finalSeq !== null && seqs.length === recording.finalSeq + 1;
}

/**
 * Finishes a recording with the chunks stored so far: joins them into its one file and marks it
 * ready, telling `events` in the same transaction (the webhook outbox writes `recording.ready`), or
 * marks it failed when no audio arrived. Safe to run twice and from two workers at once: only one
 * marks it ready.
 */
export async function completeRecording(
  db: Knex,
  storage: RecordingStorage,
  events: RecordingEvents,
  recordingId: number,
): Promise<RecordingRecord | null> {
  const recording = await findRecording(db, recordingId);
  if (recording?.state !== 'recording') return null;
  const { seqs, sizeBytes } = await storedChunks(db, recordingId);
  if (sizeBytes === 0) {
    await inStorage('removing an empty recording', () => storage.remove(recording.storageKey));
    await markRecordingFailed(db, recordingId, recording.error ?? 'the bot recorded no audio');
    return null;
  }
  const assembled = await inStorage('assembling', () => storage.assemble(recording.storageKey, seqs));
  return db.transaction(async (trx: Db) => {
    const ready = await markRecordingReady(trx, recordingId, assembled.sizeBytes);
    const event = ready && readyEvent(ready);
    if (event) await events.recordingReady(trx, event);
    return ready;
  });
}

/** What the features above hear of a ready recording; nothing for one no longer in a meeting (being deleted). */
function readyEvent(recording: RecordingRecord): RecordingReady | undefined {
  if (recording.meetingId === null) return undefined;
  return {
    meetingId: recording.meetingId,
    recording: {
      id: recording.id,
      format: recording.format,
      contentType: RECORDING_CONTENT_TYPE,
      startSeconds: recording.startSeconds,
      durationSeconds: recording.durationSeconds,
      sizeBytes: recording.sizeBytes,
      completedAt: recording.completedAt,
    },
  };
}
