import type { Db } from '../infra/knex.js';

export const RECORDING_STATES = ['recording', 'ready', 'failed', 'deleting'] as const;
export type RecordingState = (typeof RECORDING_STATES)[number];

/** The one format bots record in: Ogg Opus, 16 kHz mono speech (bot/recording/opus-encoder.ts). */
export const RECORDING_FORMAT = 'ogg_opus';
export const RECORDING_CONTENT_TYPE = 'audio/ogg; codecs=opus';

export interface RecordingRecord {
  id: number;
  meetingId: number | null;
  /** Null only once its user was deleted (the row then waits, `deleting`, for its files to go). */
  userId: number | null;
  sessionId: string;
  format: string;
  state: RecordingState;
  storageKey: string;
  startSeconds: number;
  durationSeconds: number;
  sizeBytes: number;
  finalSeq: number | null;
  error: string | null;
  createdAt: Date;
  lastChunkAt: Date | null;
  completedAt: Date | null;
}

interface RecordingRow {
  id: number;
  meeting_id: number | null;
  user_id: number | null;
  session_id: string;
  format: string;
  state: RecordingState;
  storage_key: string;
  start_seconds: number;
  duration_seconds: number;
  size_bytes: string | number;
  final_seq: number | null;
  error: string | null;
  created_at: Date;
  last_chunk_at: Date | null;
  completed_at: Date | null;
}

function toRecord(row: RecordingRow): RecordingRecord {
  return {
    id: row.id,
    meetingId: row.meeting_id,
    userId: row.user_id,
    sessionId: row.session_id,
    format: row.format,
    state: row.state,
    storageKey: row.storage_key,
    startSeconds: row.start_seconds,
    durationSeconds: row.duration_seconds,
    sizeBytes: Number(row.size_bytes),
    finalSeq: row.final_seq,
    error: row.error,
    createdAt: row.created_at,
    lastChunkAt: row.last_chunk_at,
    completedAt: row.completed_at,
  };
}

/** Where a recording's files live in the storage: one folder per meeting, one name per recording. */
export function recordingStorageKey(meetingId: number, recordingId: number): string {
  return `meeting-${meetingId}/recording-${recordingId}`;
}

/**
 * The recording of one launch of one meeting: looked up by both (a session id never finds another
 * meeting's recording), or detached from that meeting by a delete (its meeting id is gone then).
 */
function recordingOfLaunch(db: Db, input: { meetingId: number; sessionId: string }) {
  return db<RecordingRow>('recordings')
    .where({ session_id: input.sessionId })
    .andWhere((query) => query.where({ meeting_id: input.meetingId }).orWhereNull('meeting_id'))
    .orderByRaw('meeting_id IS NULL');
}

/**
 * The recording of one bot launch, created by its first chunk. A repeated first chunk (at-least-once
 * delivery, or two ingesters racing) finds the row the other made; so does a late chunk of a
 * recording already deleted (detached from its meeting, found by its launch session), which must
 * not bring it back. The row gets its id and storage key in one statement, never a row without a key.
 */
export async function findOrCreateRecording(
  db: Db,
  input: { meetingId: number; userId: number; sessionId: string; startSeconds: number },
): Promise<RecordingRecord> {
  const existing = await recordingOfLaunch(db, input).first();
  if (existing) return toRecord(existing);
  const next = await db.raw<{ rows: Array<{ id: string }> }>(
    `SELECT nextval(pg_get_serial_sequence('recordings', 'id')) AS id`,
  );
  const id = Number(next.rows[0]!.id);
  const inserted = await db.raw<{ rows: RecordingRow[] }>(
    `INSERT INTO recordings (id, meeting_id, user_id, session_id, format, storage_key, start_seconds)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (meeting_id, session_id) DO NOTHING
     RETURNING *`,
    [
      id,
      input.meetingId,
      input.userId,
      input.sessionId,
      RECORDING_FORMAT,
      recordingStorageKey(input.meetingId, id),
      input.startSeconds,
    ],
  );
  const row = inserted.rows[0] ?? (await recordingOfLaunch(db, input).first());
  if (!row) throw new Error(`recording of meeting ${input.meetingId} vanished while it was created`);
  return toRecord(row);
}

export async function findRecording(db: Db, id: number): Promise<RecordingRecord | null> {
  const row = await db<RecordingRow>('recordings').where({ id }).first();
  return row ? toRecord(row) : null;
}

/** A meeting's recordings, oldest first, without those being deleted. */
export async function listMeetingRecordings(
  db: Db,
  meetingIds: readonly number[],
): Promise<RecordingRecord[]> {
  if (meetingIds.length === 0) return [];
  const rows = await db<RecordingRow>('recordings')
    .whereIn('meeting_id', meetingIds)
    .whereNot('state', 'deleting')
    .orderBy('id');
  return rows.map(toRecord);
}

/** Notes a stored chunk: how much audio the recording holds so far, and its last number once known. */
export async function recordChunk(
  db: Db,
  recordingId: number,
  chunk: { seq: number; sizeBytes: number; endSeconds: number; final: boolean; error?: string },
): Promise<void> {
  await db.raw(
    `INSERT INTO recording_chunks (recording_id, seq, size_bytes) VALUES (?, ?, ?)
     ON CONFLICT (recording_id, seq) DO UPDATE SET size_bytes = EXCLUDED.size_bytes`,
    [recordingId, chunk.seq, chunk.sizeBytes],
  );
  await db('recordings')
    .where({ id: recordingId })
    .update({
      duration_seconds: db.raw('GREATEST(duration_seconds, ?)', [chunk.endSeconds]),
      last_chunk_at: db.fn.now(),
      ...(chunk.final && { final_seq: chunk.seq }),
      ...(chunk.error !== undefined && { error: chunk.error.slice(0, 1000) }),
    });
}

/** The numbers of the chunks stored so far, in order, and their total size. */
export async function storedChunks(
  db: Db,
  recordingId: number,
): Promise<{ seqs: number[]; sizeBytes: number }> {
  const rows: Array<{ seq: number; size_bytes: number }> = await db('recording_chunks')
    .where({ recording_id: recordingId })
    .orderBy('seq')
    .select('seq', 'size_bytes');
  return { seqs: rows.map((row) => row.seq), sizeBytes: rows.reduce((sum, row) => sum + row.size_bytes, 0) };
}

/** Marks a recording complete (its one object assembled). False when it had left `recording` already. */
export async function markRecordingReady(
  db: Db,
  recordingId: number,
  sizeBytes: number,
): Promise<RecordingRecord | null> {
  const [row] = await db<RecordingRow>('recordings')
    .where({ id: recordingId, state: 'recording' })
    .update({ state: 'ready', size_bytes: sizeBytes, completed_at: db.fn.now() })
    .returning('*');
  return row ? toRecord(row as RecordingRow) : null;
}

export async function markRecordingFailed(db: Db, recordingId: number, error: string): Promise<void> {
  await db('recordings')
    .where({ id: recordingId, state: 'recording' })
    .update({ state: 'failed', error: error.slice(0, 1000), completed_at: db.fn.now() });
}

/** Detaches recordings from their meetings and queues their files for removal (same transaction as the delete). */
export async function markRecordingsDeleting(
  db: Db,
  where: { ids?: number[]; meetingIds?: number[]; userId?: number },
): Promise<number[]> {
  const query = db<RecordingRow>('recordings').whereNot('state', 'deleting');
  if (where.ids) query.whereIn('id', where.ids);
  if (where.meetingIds) query.whereIn('meeting_id', where.meetingIds);
  if (where.userId !== undefined) query.where('user_id', where.userId);
  const rows = await query.update({ state: 'deleting', meeting_id: null }).returning('id');
  return rows.map((row) => (row as { id: number }).id);
}

/** Removes the row of a recording whose files are gone. */
export async function deleteRecordingRow(db: Db, recordingId: number): Promise<void> {
  await db('recordings').where({ id: recordingId, state: 'deleting' }).delete();
}

/**
 * Recordings a sweep must see to: `unfinished` ones whose bot is gone without saying it was done (no
 * chunk for `staleSeconds`, and the meeting over, relaunched with another bot, or deleted),
 * `deleting` ones whose files must still be removed, and `expired` ones past the retention. Not
 * locked: everything a sweep does to them is idempotent and conditional, so two workers may race.
 */
export async function recordingsToSweep(
  db: Db,
  options: { staleSeconds: number; retentionDays: number; limit: number },
): Promise<{ unfinished: RecordingRecord[]; deleting: RecordingRecord[]; expired: RecordingRecord[] }> {
  const unfinished = await db.raw<{ rows: RecordingRow[] }>(
    `SELECT r.* FROM recordings r LEFT JOIN meetings m ON m.id = r.meeting_id
     WHERE r.state = 'recording'
       AND COALESCE(r.last_chunk_at, r.created_at) < now() - make_interval(secs => ?)
       AND (m.id IS NULL OR m.status IN ('completed', 'failed') OR m.launch_session_id IS DISTINCT FROM r.session_id)
     ORDER BY r.id LIMIT ?`,
    [options.staleSeconds, options.limit],
  );
  const deleting = await db.raw<{ rows: RecordingRow[] }>(
    `SELECT * FROM recordings WHERE state = 'deleting' ORDER BY id LIMIT ?`,
    [options.limit],
  );
  const expired =
    options.retentionDays > 0
      ? await db.raw<{ rows: RecordingRow[] }>(
          `SELECT * FROM recordings
           WHERE state IN ('ready', 'failed') AND COALESCE(completed_at, created_at) < now() - make_interval(days => ?)
           ORDER BY id LIMIT ?`,
          [options.retentionDays, options.limit],
        )
      : { rows: [] };
  return {
    unfinished: unfinished.rows.map(toRecord),
    deleting: deleting.rows.map(toRecord),
    expired: expired.rows.map(toRecord),
  };
}
