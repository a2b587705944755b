import type { Knex } from '../../shared/infra/knex.js';

/** One segment as a bench writes it straight into transcript_segments. */
export interface BenchSegment {
  meetingId: number;
  segmentId: string;
  start: number;
  end: number;
  text: string;
  speaker: string | null;
  language: string;
  absoluteStart: string;
  absoluteEnd: string;
}

function emptyBatch() {
  return {
    meeting: [] as number[],
    segment: [] as string[],
    start: [] as number[],
    end: [] as number[],
    text: [] as string[],
    speaker: [] as Array<string | null>,
    language: [] as string[],
    absoluteStart: [] as string[],
    absoluteEnd: [] as string[],
    final: [] as boolean[],
  };
}

/**
 * Final segments written in batches of `size` with one INSERT … SELECT unnest(…) each, through the
 * table's triggers and indexes as the service's writes go; `onFlushed` hears the running total.
 */
export class SegmentBatches {
  private batch = emptyBatch();
  written = 0;

  constructor(
    private readonly db: Knex,
    private readonly onFlushed: (written: number, batchSize: number) => void = () => undefined,
    private readonly size = 5000,
  ) {}

  async add(segment: BenchSegment): Promise<void> {
    const batch = this.batch;
    batch.meeting.push(segment.meetingId);
    batch.segment.push(segment.segmentId);
    batch.start.push(segment.start);
    batch.end.push(segment.end);
    batch.text.push(segment.text);
    batch.speaker.push(segment.speaker);
    batch.language.push(segment.language);
    batch.absoluteStart.push(segment.absoluteStart);
    batch.absoluteEnd.push(segment.absoluteEnd);
    batch.final.push(true);
    if (batch.meeting.length >= this.size) await this.flush();
  }

  async flush(): Promise<void> {
    const batch = this.batch;
    if (batch.meeting.length === 0) return;
    await this.db.raw(
      `INSERT INTO transcript_segments (meeting_id, segment_id, start_seconds, end_seconds, text, speaker,
         language, absolute_start_time, absolute_end_time, is_final)
       SELECT * FROM unnest(?::integer[], ?::text[], ?::float8[], ?::float8[], ?::text[], ?::text[],
         ?::text[], ?::timestamptz[], ?::timestamptz[], ?::boolean[])`,
      [
        batch.meeting,
        batch.segment,
        batch.start,
        batch.end,
        batch.text,
        batch.speaker,
        batch.language,
        batch.absoluteStart,
        batch.absoluteEnd,
        batch.final,
      ] as unknown as Knex.RawBinding[],
    );
    this.written += batch.meeting.length;
    this.batch = emptyBatch();
    this.onFlushed(this.written, this.size);
  }
}
