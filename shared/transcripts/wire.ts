import { z } from 'zod';
import { isoTimestamp } from '../infra/timestamps.js';
import { meetingHeaderShape } from '../meetings/wire.js';

/** Transcripts as the API shows them (responses; also the OpenAPI document's schemas). */

export const segmentSchema = z
  .object({
    start: z.number().describe("Seconds from the start of the bot's audio capture in this meeting."),
    end: z.number().describe("Seconds from the start of the bot's audio capture in this meeting."),
    text: z.string(),
    speaker: z
      .string()
      .describe('Display name of the speaker; "Unknown speaker" when the page gave no evidence.'),
    language: z.string(),
    absolute_start_time: isoTimestamp,
    absolute_end_time: isoTimestamp,
    created_at: isoTimestamp,
  })
  .meta({ id: 'TranscriptSegment' });

export const transcriptSchema = z
  .object({
    ...meetingHeaderShape,
    segments: z.array(segmentSchema),
  })
  .meta({ id: 'Transcript' });
