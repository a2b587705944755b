import type { Db } from '../infra/knex.js';
import type { ExportSegment } from './cues.js';

// The transcript's order (listSegments' too): by start offset, then when the words were spoken, then arrival.
const TRANSCRIPT_ORDER = [
  { column: 'start_seconds', order: 'asc' },
  { column: 'absolute_start_time', order: 'asc' },
  { column: 'id', order: 'asc' },
] as const;

/**
 * A meeting's segments as the JSON text of GET /transcripts' `segments` array, in transcript order.
 * Each segment's strings and times come already written as JSON by Postgres (`json_text`, kept by
 * a trigger at every write); Node writes the two numbers as JSON.stringify does. No record, Date
 * or object per segment: those were most of the cost of a long meeting's transcript. The bytes are
 * segmentJson's (a test holds the two together).
 */
export async function segmentsJsonText(db: Db, meetingId: number): Promise<string> {
  const rows: Array<{ start_seconds: number; end_seconds: number; json_text: string }> = await db(
    'transcript_segments',
  )
    .where({ meeting_id: meetingId })
    .orderBy([...TRANSCRIPT_ORDER])
    .select('start_seconds', 'end_seconds', 'json_text');
  const parts = rows.map(
    (row) =>
      `{"start":${JSON.stringify(row.start_seconds)},"end":${JSON.stringify(row.end_seconds)},${row.json_text}}`,
  );
  return `[${parts.join(',')}]`;
}

/** A meeting's segments in transcript order, only what the text exports show (the speaker as stored). */
export async function exportSegments(db: Db, meetingId: number): Promise<ExportSegment[]> {
  const rows: Array<{ start_seconds: number; end_seconds: number; text: string; speaker: string | null }> =
    await db('transcript_segments')
      .where({ meeting_id: meetingId })
      .orderBy([...TRANSCRIPT_ORDER])
      .select('start_seconds', 'end_seconds', 'text', 'speaker');
  return rows.map((row) => ({
    start: row.start_seconds,
    end: row.end_seconds,
    text: row.text,
    speaker: row.speaker,
  }));
}
