import { PeriodicLoop } from '../../shared/infra/background-loop.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { completeRecording, inStorage } from '../../shared/recordings/completion.js';
import type { RecordingStorage } from '../../shared/recordings/storage.js';
import {
  deleteRecordingRow,
  markRecordingsDeleting,
  recordingsToSweep,
} from '../../shared/recordings/store.js';
import { domainEvents } from '../events/domain-events.js';

export interface RecordingSweepOptions {
  /** A recording of a finished meeting with no chunk for this long is finished with what it has. */
  staleSeconds: number;
  /** RECORDING_RETENTION_DAYS (0: keep). */
  retentionDays: number;
  intervalMs: number;
}

export interface RecordingSweepReport {
  completed: number;
  failed: number;
  removed: number;
  expired: number;
}

const BATCH = 50;

/**
 * Finishes what the chunk stream can't: recordings whose bot died before its final chunk (a crash,
 * an out-of-memory kill, a lost host) are assembled from the chunks that arrived; recordings being
 * deleted lose their files and then their rows; recordings past the retention are deleted. Storage
 * failures are logged and retried on the next sweep.
 */
export class RecordingSweeper {
  private readonly sweeps: PeriodicLoop;

  constructor(
    private readonly deps: { db: Knex; storage: RecordingStorage; log: Logger },
    private readonly options: RecordingSweepOptions,
  ) {
    this.sweeps = new PeriodicLoop({
      intervalMs: options.intervalMs,
      task: () => this.sweep(),
      onError: (error) => deps.log.warn({ err: error }, 'recording sweep failed; trying again later'),
      holdsProcess: false,
    });
  }

  start(): void {
    this.sweeps.start();
  }

  /** Waits for a sweep in progress, so storage and the database can be closed right after. */
  stop(): Promise<void> {
    return this.sweeps.stop();
  }

  async sweep(): Promise<RecordingSweepReport> {
    const { db, storage, log } = this.deps;
    const report: RecordingSweepReport = { completed: 0, failed: 0, removed: 0, expired: 0 };
    const due = await recordingsToSweep(db, { ...this.options, limit: BATCH });
    for (const recording of due.unfinished) {
      try {
        const ready = await completeRecording(db, storage, domainEvents, recording.id);
        if (ready) report.completed += 1;
        else report.failed += 1;
        log.info(
          { recordingId: recording.id, meetingId: recording.meetingId, ready: ready !== null },
          'recording finished without its bot’s last chunk',
        );
      } catch (error) {
        log.warn(
          { err: error, recordingId: recording.id },
          'could not finish a recording; trying again later',
        );
      }
    }
    if (due.expired.length > 0) {
      const ids = await markRecordingsDeleting(db, { ids: due.expired.map((recording) => recording.id) });
      report.expired = ids.length;
      if (ids.length > 0)
        log.info({ recordingIds: ids, days: this.options.retentionDays }, 'recordings expired');
    }
    for (const recording of [...due.deleting, ...due.expired]) {
      try {
        await inStorage('removing', () => storage.remove(recording.storageKey));
        await deleteRecordingRow(db, recording.id);
        report.removed += 1;
      } catch (error) {
        log.warn(
          { err: error, recordingId: recording.id },
          'could not remove a recording; trying again later',
        );
      }
    }
    return report;
  }
}
