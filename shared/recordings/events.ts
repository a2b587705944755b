import type { Db } from '../infra/knex.js';

/**
 * What recordings tell the features above them (the webhook outbox). The receiver is called with
 * the transaction that marked the recording ready, so what it writes commits or rolls back with it.
 */

/** A meeting's recording is complete: its one file is stored and can be fetched. */
export interface RecordingReady {
  meetingId: number;
  recording: {
    id: number;
    format: string;
    contentType: string;
    /** The transcript time (seconds) of the recording's time zero. */
    startSeconds: number;
    durationSeconds: number;
    sizeBytes: number;
    completedAt: Date | null;
  };
}

export interface RecordingEvents {
  recordingReady(trx: Db, event: RecordingReady): Promise<void>;
}
