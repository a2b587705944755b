import { z } from 'zod';
import { meetingDetailAnswer } from '../../../shared/meeting-details/service.js';
import { updatedMeetingJson } from '../../../shared/meetings/serialize.js';
import { meetingListAnswer, updateMeetingData } from '../../../shared/meetings/service.js';
import { updateMeetingDataRequest } from '../../routes/meetings/schema.js';
import { meetingRefParams } from '../../routes/path-params.js';
import { meetingIdShape, meetingRefShape, pageShape } from '../arguments.js';
import { defineTool, parseArguments } from '../tool.js';

export const listMeetingsTool = defineTool({
  name: 'list_meetings',
  title: 'List meetings',
  description:
    'GET /meetings: your meetings in every status, newest first, a page at a time (`meetings`: id, platform, native_meeting_id, status, start_time, end_time, data with name, notes, participants, languages).',
  annotations: { readOnlyHint: true, openWorldHint: false },
  shape: (deps) => pageShape(deps.pageSizes),
  parse: (args, deps) => parseArguments(z.object(pageShape(deps.pageSizes)), args),
  async call(page, { deps, auth }) {
    return { json: await meetingListAnswer(deps.db, deps.cache, auth, page) };
  },
});

const meetingIdArguments = z.object(meetingIdShape);

export const getMeetingTool = defineTool({
  name: 'get_meeting',
  title: 'Get a meeting',
  description:
    'GET /meetings/{id}: one of your meetings (status, times, data) with its recordings. `Meeting not found` for an id that is not yours.',
  annotations: { readOnlyHint: true, openWorldHint: false },
  shape: () => meetingIdShape,
  parse: (args) => parseArguments(meetingIdArguments, args),
  async call({ meeting_id }, { deps, auth, baseUrl }) {
    return {
      json: await meetingDetailAnswer(deps.db, auth, meeting_id, {
        baseUrl,
        ttlSeconds: deps.mediaLinkTtlSeconds,
      }),
    };
  },
});

export const updateMeetingDataTool = defineTool({
  name: 'update_meeting_data',
  title: "Update a meeting's data",
  description:
    "PATCH /meetings/{platform}/{native_meeting_id}: changes the latest such meeting's data: only the members given change (name, notes, participants, languages, or your own); a member set to null is removed. Answers the meeting with its data after the update.",
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  shape: () => ({ ...meetingRefShape, ...updateMeetingDataRequest.shape }),
  parse: (args) => ({
    ref: parseArguments(meetingRefParams, args),
    body: parseArguments(updateMeetingDataRequest, args),
  }),
  async call({ ref, body }, { deps, auth }) {
    const meeting = await updateMeetingData(
      deps.db,
      auth,
      ref.platform,
      ref.native_meeting_id,
      body.data,
      deps.meetingDataMaxBytes,
    );
    return { json: updatedMeetingJson(meeting) };
  },
});
