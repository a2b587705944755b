import type { z } from 'zod';
import type { SegmentRecord } from './store.js';
import type { segmentSchema } from './wire.js';

export const UNKNOWN_SPEAKER = 'Unknown speaker';
export const UNKNOWN_LANGUAGE = 'und';

/** A segment as the API shows it (GET /transcripts, the live stream, webhooks). */
export type SegmentJson = z.infer<typeof segmentSchema>;

export function segmentJson(segment: SegmentRecord): SegmentJson {
  return {
    start: segment.start,
    end: segment.end,
    text: segment.text,
    speaker: segment.speaker ?? UNKNOWN_SPEAKER,
    language: segment.language ?? UNKNOWN_LANGUAGE,
    absolute_start_time: segment.absoluteStartTime.toISOString(),
    absolute_end_time: segment.absoluteEndTime.toISOString(),
    created_at: segment.createdAt.toISOString(),
  };
}

/** A segment as live consumers get it (stream, webhooks): a copy with the same id replaces the earlier one. */
export interface LiveSegmentJson extends SegmentJson {
  segment_id: string;
  final: boolean;
}

export function liveSegmentJson(segment: SegmentRecord): LiveSegmentJson {
  return { segment_id: segment.segmentId, final: segment.final, ...segmentJson(segment) };
}
