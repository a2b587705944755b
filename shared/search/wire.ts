import { z } from 'zod';
import { MEETING_STATUSES } from '../contract/meeting-status.js';
import { PLATFORMS } from '../contract/platforms.js';
import { isoTimestamp } from '../infra/timestamps.js';

/** Search answers as the API shows them (responses; also the OpenAPI document's schemas). */

export const searchHitSchema = z
  .object({
    field: z
      .enum(['transcript', 'name', 'participants', 'notes'])
      .describe(
        "Where the match is: a transcript segment, or the meeting's data.name, data.participants or data.notes.",
      ),
    rank: z
      .number()
      .describe(
        'ts_rank_cd, scaled to 0–1: higher is better. The same match ranks name > participants > notes > transcript.',
      ),
    snippet: z
      .string()
      .describe(
        'The matching text around the hit, HTML-escaped (& < >), each match between <mark> and </mark>; fragments of a long text joined by " … ".',
      ),
    meeting: z.object({
      id: z.number().int(),
      platform: z.enum(PLATFORMS),
      native_meeting_id: z.string(),
      status: z.enum(MEETING_STATUSES),
      name: z.string().nullable().describe('data.name, when it is a string'),
      start_time: isoTimestamp.nullable(),
      end_time: isoTimestamp.nullable(),
    }),
    segment: z
      .object({
        segment_id: z.string().describe('The id the live stream and webhooks give this segment'),
        speaker: z.string(),
        language: z.string(),
        text: z.string(),
        start: z.number().describe("Seconds from the start of the bot's audio capture in this meeting."),
        end: z.number(),
        absolute_start_time: isoTimestamp,
        absolute_end_time: isoTimestamp,
      })
      .nullable()
      .describe('The segment, for a hit in the transcript; null for a hit in the meeting data.'),
  })
  .meta({ id: 'SearchHit' });

export const searchResultsSchema = z
  .object({
    total: z.number().int().describe('Hits in all pages'),
    hits: z.array(searchHitSchema).describe('This page of hits, best first'),
  })
  .meta({ id: 'SearchResults' });
