import { recordingChunkMessage } from '../../shared/contract/events.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { completeRecording, hasEveryChunk, inStorage } from '../../shared/recordings/completion.js';
import type { RecordingStorage } from '../../shared/recordings/storage.js';
import { findOrCreateRecording, recordChunk, storedChunks } from '../../shared/recordings/store.js';
import { domainEvents } from '../events/domain-events.js';
import { readBoundMessage } from './bound-identity.js';
import type { BatchHandler, DeadLetter } from './stream-consumer.js';

/**
 * Stores the bots' recording chunks as they come: the chunk's bytes in the recording storage first,
 * then its row, so a listed chunk always exists. The chunk that completes a recording (the bot's
 * final one, or the last missing one after it) assembles the file and marks it ready. A storage
 * outage leaves the batch pending for a retry; it never touches the transcript's consumers.
 */
export function recordingChunkHandler(
  db: Knex,
  storage: RecordingStorage,
  log: Logger,
  announce: AnnounceChanges,
): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    const ready = new Set<number>();
    for (const message of messages) {
      const read = readBoundMessage(recordingChunkMessage, message);
      if (!read.ok) {
        deadLetters.push({ message, reason: read.reason });
        continue;
      }
      const { value, identity } = read.value;
      const chunk = { ...value, ...identity };
      const meeting = await findMeetingById(db, chunk.meetingId);
      if (!meeting) {
        // Its meeting was deleted: the audio goes with it (not to the dead letters, it is bulk).
        log.warn(
          { meetingId: chunk.meetingId, seq: chunk.seq },
          'recording chunk of an unknown meeting dropped',
        );
        continue;
      }
      const recording = await findOrCreateRecording(db, {
        meetingId: meeting.id,
        userId: meeting.userId,
        sessionId: chunk.sessionId,
        startSeconds: chunk.startSeconds,
      });
      if (recording.state !== 'recording') continue;
      const bytes = Buffer.from(chunk.data, 'base64');
      await inStorage('storing a chunk', () => storage.putChunk(recording.storageKey, chunk.seq, bytes));
      await recordChunk(db, recording.id, {
        seq: chunk.seq,
        sizeBytes: bytes.length,
        endSeconds: chunk.endSeconds,
        final: chunk.final,
        ...(chunk.error !== undefined && { error: chunk.error }),
      });
      if (chunk.error !== undefined) {
        log.warn(
          { meetingId: meeting.id, recordingId: recording.id, error: chunk.error },
          'the bot says its recorder failed',
        );
      }
      const finalSeq = chunk.final ? chunk.seq : recording.finalSeq;
      if (finalSeq === null) continue;
      const { seqs } = await storedChunks(db, recording.id);
      if (!hasEveryChunk({ finalSeq }, seqs)) continue;
      const completed = await completeRecording(db, storage, domainEvents, recording.id);
      if (completed) {
        ready.add(meeting.id);
        log.info(
          {
            meetingId: meeting.id,
            recordingId: completed.id,
            seconds: completed.durationSeconds,
            bytes: completed.sizeBytes,
          },
          'recording ready',
        );
      }
    }
    // Its recording.ready webhook is delivered now, not at the dispatcher's next sweep.
    await announce(ready);
    return deadLetters;
  };
}
