import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult, Resource } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { meetingDetailAnswer } from '../../shared/meeting-details/service.js';
import { meetingListAnswer } from '../../shared/meetings/service.js';
import type { meetingListSchema } from '../../shared/meetings/wire.js';
import { meetingTranscriptAnswer, meetingTranscriptExport } from '../../shared/transcripts/service.js';
import { parseInput } from '../middleware/validate.js';
import { meetingIdParams } from '../routes/meetings/schema.js';
import type { McpCall } from './deps.js';
import { jsonRpcErrorOf } from './errors.js';

type MeetingListJson = z.infer<typeof meetingListSchema>;
type ListedMeeting = MeetingListJson['meetings'][number];

/** A read of one meeting's resource by the `{id}` of its URI. */
type Read = (meetingId: number, uri: URL) => Promise<ReadResourceResult['contents'][number]>;

/**
 * The key's user's meetings and transcripts as resources: `meeting://{id}` (GET /meetings/{id}),
 * `transcript://{id}` (the transcript as `[HH:MM:SS] Speaker: text` lines) and `transcript://{id}/json`
 * (GET /transcripts' JSON). resources/list names the newest page of meetings (LIST_DEFAULT_LIMIT)
 * and each one's transcript; older ones are read by their URI (list_meetings finds their ids).
 */
export function registerMeetingResources(server: McpServer, call: McpCall): void {
  const { deps, auth } = call;
  const newest = async (): Promise<ListedMeeting[]> => {
    const page = { limit: deps.pageSizes.defaultLimit, offset: 0 };
    const answer = await meetingListAnswer(deps.db, deps.cache, auth, page);
    return (JSON.parse(answer.toString('utf8')) as MeetingListJson).meetings;
  };
  const listed = (describe: (meeting: ListedMeeting) => Resource) => async () => {
    try {
      return { resources: (await newest()).map(describe) };
    } catch (caught) {
      throw jsonRpcErrorOf(caught, call.log);
    }
  };

  server.registerResource(
    'meeting',
    new ResourceTemplate('meeting://{id}', {
      list: listed((meeting) => ({
        uri: `meeting://${meeting.id}`,
        name: `meeting-${meeting.id}`,
        title: meetingTitle(meeting),
        description: `Meeting ${meeting.id}: ${meeting.status}`,
        mimeType: 'application/json',
      })),
    }),
    {
      title: 'Meeting',
      description:
        'One of your meetings as GET /meetings/{id} answers it: status, times, data (name, notes, participants, languages), recordings',
      mimeType: 'application/json',
    },
    reader(call, async (meetingId, uri) => {
      const detail = await meetingDetailAnswer(deps.db, auth, meetingId, {
        baseUrl: call.baseUrl,
        ttlSeconds: deps.mediaLinkTtlSeconds,
      });
      return { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(detail) };
    }),
  );

  server.registerResource(
    'transcript',
    new ResourceTemplate('transcript://{id}', {
      list: listed((meeting) => ({
        uri: `transcript://${meeting.id}`,
        name: `transcript-${meeting.id}`,
        title: `Transcript: ${meetingTitle(meeting)}`,
        description: `The transcript of meeting ${meeting.id} (${meeting.status})`,
        mimeType: 'text/plain',
      })),
    }),
    {
      title: 'Transcript (text)',
      description: "A meeting's transcript as `[HH:MM:SS] Speaker: text` lines, in chronological order",
      mimeType: 'text/plain',
    },
    reader(call, async (meetingId, uri) => {
      const text = await meetingTranscriptExport(deps.db, deps.cache, auth, meetingId, 'txt');
      return { uri: uri.href, mimeType: 'text/plain', text: text.body.toString('utf8') };
    }),
  );

  server.registerResource(
    'transcript-json',
    new ResourceTemplate('transcript://{id}/json', { list: undefined }),
    {
      title: 'Transcript (JSON)',
      description:
        "A meeting's transcript as GET /transcripts answers it: the meeting and its segments (start, end, text, speaker, language, absolute times)",
      mimeType: 'application/json',
    },
    reader(call, async (meetingId, uri) => {
      const json = await meetingTranscriptAnswer(deps.db, deps.cache, auth, meetingId);
      return { uri: uri.href, mimeType: 'application/json', text: json.toString('utf8') };
    }),
  );
}

/** The meeting's name when it has one, else its platform and native id. */
function meetingTitle(meeting: ListedMeeting): string {
  const name = meeting.data.name;
  return typeof name === 'string' && name.trim() !== ''
    ? name
    : `${meeting.platform} ${meeting.native_meeting_id}`;
}

/** A read callback: the URI's `{id}` validated as the REST path's, failures as the REST text. */
function reader(call: McpCall, read: Read) {
  return async (uri: URL, variables: Record<string, string | string[]>): Promise<ReadResourceResult> => {
    try {
      const id = Array.isArray(variables.id) ? variables.id.join(',') : variables.id;
      const { id: meetingId } = parseInput(meetingIdParams, { id }, 'URI');
      return { contents: [await read(meetingId, uri)] };
    } catch (caught) {
      throw jsonRpcErrorOf(caught, call.log);
    }
  };
}
