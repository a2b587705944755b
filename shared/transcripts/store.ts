import type { Db } from '../infra/knex.js';

export interface SegmentRecord {
  meetingId: number;
  segmentId: string;
  start: number;
  end: number;
  text: string;
  speaker: string | null;
  language: string | null;
  absoluteStartTime: Date;
  absoluteEndTime: Date;
  final: boolean;
  /** Increases with every write of any segment: "changed after N" resumes a live stream. */
  changeSeq: number;
  createdAt: Date;
  updatedAt: Date;
}

interface SegmentRow {
  id: number;
  meeting_id: number;
  segment_id: string;
  start_seconds: number;
  end_seconds: number;
  text: string;
  speaker: string | null;
  language: string | null;
  absolute_start_time: Date;
  absolute_end_time: Date;
  is_final: boolean;
  change_seq: number;
  created_at: Date;
  updated_at: Date;
}

/** What a segment read returns: the row without its search columns (user_id, search_config, search_vector). */
const SEGMENT_COLUMNS: string[] = [
  'id',
  'meeting_id',
  'segment_id',
  'start_seconds',
  'end_seconds',
  'text',
  'speaker',
  'language',
  'absolute_start_time',
  'absolute_end_time',
  'is_final',
  'change_seq',
  'created_at',
  'updated_at',
];

export type SegmentUpsert = Omit<SegmentRecord, 'createdAt' | 'updatedAt' | 'changeSeq'>;

function toRecord(row: SegmentRow): SegmentRecord {
  return {
    meetingId: row.meeting_id,
    segmentId: row.segment_id,
    start: row.start_seconds,
    end: row.end_seconds,
    text: row.text,
    speaker: row.speaker,
    language: row.language,
    absoluteStartTime: row.absolute_start_time,
    absoluteEndTime: row.absolute_end_time,
    final: row.is_final,
    changeSeq: row.change_seq,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Chronological: by start offset, then by when the words were spoken, then by arrival. */
export async function listSegments(db: Db, meetingId: number): Promise<SegmentRecord[]> {
  const rows = await db<SegmentRow>('transcript_segments')
    .where({ meeting_id: meetingId })
    .orderBy([
      { column: 'start_seconds', order: 'asc' },
      { column: 'absolute_start_time', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .select<SegmentRow[]>(SEGMENT_COLUMNS);
  return rows.map(toRecord);
}

/**
 * Inserts or updates segments by (meeting, segment id) in one statement. Copies can arrive out of
 * order (redelivery, several ingesters): a final copy always wins, a non-final copy never replaces a
 * final one nor a longer non-final one; an identical copy writes nothing. Returns the segments written.
 */
export async function upsertSegments(db: Db, segments: readonly SegmentUpsert[]): Promise<SegmentRecord[]> {
  if (segments.length === 0) return [];
  const rows = latestPerSegmentId(segments).map((segment) => ({
    meeting_id: segment.meetingId,
    segment_id: segment.segmentId,
    start_seconds: segment.start,
    end_seconds: segment.end,
    text: segment.text,
    speaker: segment.speaker,
    language: segment.language,
    absolute_start_time: segment.absoluteStartTime,
    absolute_end_time: segment.absoluteEndTime,
    is_final: segment.final,
  }));
  const result = await db('transcript_segments')
    .insert(rows)
    .onConflict(['meeting_id', 'segment_id'])
    .merge({
      start_seconds: db.raw('excluded.start_seconds'),
      end_seconds: db.raw('excluded.end_seconds'),
      text: db.raw('excluded.text'),
      speaker: db.raw('excluded.speaker'),
      language: db.raw('excluded.language'),
      absolute_start_time: db.raw('excluded.absolute_start_time'),
      absolute_end_time: db.raw('excluded.absolute_end_time'),
      is_final: db.raw('excluded.is_final'),
      change_seq: db.raw("nextval('transcript_segment_change_seq')"),
      updated_at: db.fn.now(),
    })
    .where(
      db.raw(`(excluded.is_final OR (NOT transcript_segments.is_final AND excluded.end_seconds >= transcript_segments.end_seconds))
        AND (transcript_segments.text, transcript_segments.start_seconds, transcript_segments.end_seconds,
             transcript_segments.speaker, transcript_segments.language, transcript_segments.is_final)
            IS DISTINCT FROM
            (excluded.text, excluded.start_seconds, excluded.end_seconds,
             excluded.speaker, excluded.language, excluded.is_final)`),
    )
    .returning(SEGMENT_COLUMNS);
  return (result as SegmentRow[]).map(toRecord);
}

/**
 * For each meeting, its segments written after change `after`, meeting by meeting in the order they
 * were written (the live readers' one query, however many meetings they follow).
 */
export async function listSegmentsChangedSince(
  db: Db,
  positions: ReadonlyArray<{ meetingId: number; after: number }>,
): Promise<SegmentRecord[]> {
  if (positions.length === 0) return [];
  const rows: SegmentRow[] = await db('transcript_segments as s')
    .join(
      db.raw('unnest(?::integer[], ?::bigint[]) AS p(meeting_id, after_seq)', [
        positions.map((position) => position.meetingId),
        positions.map((position) => position.after),
      ]),
      (join) => join.on('s.meeting_id', 'p.meeting_id').andOn('s.change_seq', '>', 'p.after_seq'),
    )
    .select<SegmentRow[]>(SEGMENT_COLUMNS.map((column) => `s.${column}`))
    .orderBy([{ column: 's.meeting_id' }, { column: 's.change_seq' }]);
  return rows.map(toRecord);
}

/** One row per segment id (Postgres can't update a row twice in one statement): the last copy, a final one winning. */
function latestPerSegmentId(segments: readonly SegmentUpsert[]): SegmentUpsert[] {
  const byKey = new Map<string, SegmentUpsert>();
  for (const segment of segments) {
    const key = `${segment.meetingId}\u0000${segment.segmentId}`;
    const existing = byKey.get(key);
    if (existing?.final && !segment.final) continue;
    byKey.set(key, segment);
  }
  return [...byKey.values()];
}

/**
 * A version of the meeting's transcript: the count of its segments and the sum of their change
 * numbers. Every write gives a segment a higher change number, so the sum grows with any write,
 * whatever order concurrent writes commit in (a maximum would not). Segments are only ever
 * deleted with their meeting.
 */
export async function transcriptVersion(db: Db, meetingId: number): Promise<string> {
  const row: { n: number; s: string } | undefined = await db('transcript_segments')
    .where({ meeting_id: meetingId })
    .first(db.raw('count(*)::bigint AS n, coalesce(sum(change_seq), 0)::text AS s'));
  return `${row?.n ?? 0}.${row?.s ?? 0}`;
}

/** Where a meeting's transcript stands: the wall time its `start` 0 stands for, and its last segment's end. */
export interface TranscriptTimeline {
  origin: Date | null;
  lastEnd: Date | null;
  lastEndSeconds: number | null;
}

/**
 * Read by a relaunch: the new bot carries on the meeting's time line (its `start` values follow the
 * earlier bot's), and the relaunch event says where the transcript stopped.
 */
export async function findTranscriptTimeline(db: Db, meetingId: number): Promise<TranscriptTimeline> {
  const row: { origin: Date | null; last_end: Date | null; last_end_seconds: number | null } | undefined =
    await db('transcript_segments')
      .where({ meeting_id: meetingId })
      .first(
        db.raw(
          `min(absolute_start_time - make_interval(secs => start_seconds)) AS origin,
           max(absolute_end_time) AS last_end, max(end_seconds) AS last_end_seconds`,
        ),
      );
  return {
    origin: row?.origin ?? null,
    lastEnd: row?.last_end ?? null,
    lastEndSeconds: row?.last_end_seconds ?? null,
  };
}
