import type { TranscriptSegmentMessage } from '../../shared/contract/events.js';
import type { SegmentUpsert } from '../../shared/transcripts/store.js';

/** The wall-clock time a meeting's second 0 maps to in the segment rows below. */
const MEETING_START = Date.UTC(2026, 10, 22, 10, 0, 0);

/**
 * A final English transcript row for `upsertSegments`, from `start` to `end` seconds into the
 * meeting; its absolute times count from 2026-11-22 10:00 UTC. `extra` overrides any field.
 */
export function segmentRow(
  meetingId: number,
  segmentId: string,
  start: number,
  end: number,
  text: string,
  speaker: string | null,
  extra: Partial<SegmentUpsert> = {},
): SegmentUpsert {
  return {
    meetingId,
    segmentId,
    start,
    end,
    text,
    speaker,
    language: 'en',
    absoluteStartTime: new Date(MEETING_START + start * 1000),
    absoluteEndTime: new Date(MEETING_START + end * 1000),
    final: true,
    ...extra,
  };
}

/** The last version of each final segment a bot published, in the order those were published; empty ones left out. */
export function finalSegments(messages: TranscriptSegmentMessage[]): TranscriptSegmentMessage[] {
  const finals = new Map<string, TranscriptSegmentMessage>();
  for (const message of messages) if (message.final) finals.set(message.segmentId, message);
  return [...finals.values()].filter((segment) => segment.text.trim() !== '');
}
