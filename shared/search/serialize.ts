import type { z } from 'zod';
import { isoOrNull } from '../infra/timestamps.js';
import { UNKNOWN_LANGUAGE, UNKNOWN_SPEAKER } from '../transcripts/serialize.js';
import type { SearchHit, SearchResult } from './service.js';
import { snippetOf } from './snippet.js';
import type { searchHitSchema, searchResultsSchema } from './wire.js';

export function searchHitJson(hit: SearchHit): z.infer<typeof searchHitSchema> {
  return {
    field: hit.field,
    rank: hit.rank,
    snippet: snippetOf(hit.headline),
    meeting: {
      id: hit.meeting.id,
      platform: hit.meeting.platform,
      native_meeting_id: hit.meeting.nativeMeetingId,
      status: hit.meeting.status,
      name: hit.meeting.name,
      start_time: isoOrNull(hit.meeting.startTime),
      end_time: isoOrNull(hit.meeting.endTime),
    },
    segment: hit.segment && {
      segment_id: hit.segment.segmentId,
      speaker: hit.segment.speaker ?? UNKNOWN_SPEAKER,
      language: hit.segment.language ?? UNKNOWN_LANGUAGE,
      text: hit.segment.text,
      start: hit.segment.start,
      end: hit.segment.end,
      absolute_start_time: hit.segment.absoluteStartTime.toISOString(),
      absolute_end_time: hit.segment.absoluteEndTime.toISOString(),
    },
  };
}

/** GET /search's answer (and the MCP search tool's). */
export function searchResultsJson(result: SearchResult): z.infer<typeof searchResultsSchema> {
  return { total: result.total, hits: result.hits.map(searchHitJson) };
}
