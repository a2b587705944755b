import { chatMessageJson } from '../../../shared/chat/serialize.js';
import { meetingChat } from '../../../shared/chat/service.js';
import { chatMessagesSchema } from '../../../shared/chat/wire.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { ResponseCache } from '../../../shared/infra/response-cache.js';
import { deleteMeetingData, meetingDetailAnswer } from '../../../shared/meeting-details/service.js';
import { meetingDetailSchema } from '../../../shared/meeting-details/wire.js';
import { meetingEventJson, updatedMeetingJson } from '../../../shared/meetings/serialize.js';
import { meetingListAnswer, updateMeetingData } from '../../../shared/meetings/service.js';
import {
  deletedMeetingsSchema,
  meetingListSchema,
  updatedMeetingSchema,
} from '../../../shared/meetings/wire.js';
import { participantEventJson } from '../../../shared/participants/serialize.js';
import { meetingEventLog } from '../../../shared/participants/service.js';
import { meetingEventsSchema } from '../../../shared/participants/wire.js';
import type { RecordingStorage } from '../../../shared/recordings/storage.js';
import { requireAuth } from '../../context.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import {
  integerIdParameter,
  invalidIntegerId,
  invalidMeetingRef,
  meetingRefParameters,
  meetingRefParams,
} from '../path-params.js';
import { publicBaseUrl } from '../public-url.js';
import { limitParameter, offsetParameter } from '../query-params.js';
import { routesOf, userAuth } from '../route.js';
import { listMeetingsQuery, meetingIdParams, updateMeetingDataRequest } from './schema.js';

export interface MeetingsRouteDeps {
  db: Knex;
  /** MEETING_DATA_MAX_BYTES */
  dataMaxBytes: number;
  /** Built answers, keyed by the version of what they show. */
  cache: ResponseCache;
  /** Where the meetings' recordings are kept (deleting a meeting removes them). */
  recordingStorage: RecordingStorage;
  /** PUBLIC_BASE_URL: where recordings' media URLs point (the request's origin when unset). */
  publicBaseUrl: string | undefined;
  /** RECORDING_MEDIA_LINK_TTL_SECONDS: how long the media URLs work. */
  mediaLinkTtlSeconds: number;
}

const route = routesOf<MeetingsRouteDeps>();

export const meetingRoutes = [
  route({
    method: 'get',
    path: '/meetings',
    auth: userAuth,
    query: (limits) => listMeetingsQuery(limits.pageSizes),
    summary: 'List Meetings, newest first',
    parameters: (limits) => [limitParameter('limit', limits.pageSizes), offsetParameter('offset')],
    responses: {
      200: { description: 'Meetings', ...json(meetingListSchema) },
      400: error('Invalid query'),
      ...commonErrors,
    },
    async handler(ctx, { query }, deps) {
      ctx.type = 'application/json';
      ctx.body = await meetingListAnswer(deps.db, deps.cache, requireAuth(ctx), query);
    },
  }),

  route({
    method: 'get',
    path: '/meetings/:id',
    auth: userAuth,
    params: meetingIdParams,
    summary: 'Get Meeting, with its recordings and participants',
    parameters: [integerIdParameter],
    responses: {
      200: {
        description: 'The meeting (the spec’s fields), its `recordings` and `participants`',
        ...json(meetingDetailSchema),
      },
      400: invalidIntegerId,
      ...commonErrors,
      404: error('`Meeting not found`'),
    },
    async handler(ctx, { params }, deps) {
      ctx.body = await meetingDetailAnswer(deps.db, requireAuth(ctx), params.id, {
        baseUrl: publicBaseUrl(ctx, deps.publicBaseUrl),
        ttlSeconds: deps.mediaLinkTtlSeconds,
      });
    },
  }),

  route({
    method: 'get',
    path: '/meetings/:id/events',
    auth: userAuth,
    params: meetingIdParams,
    summary:
      "The meeting's status transitions, oldest first, with time, source, reason and detail, and its participants joining, leaving and speaking (beyond the spec)",
    parameters: [integerIdParameter],
    responses: {
      200: { description: 'Events', ...json(meetingEventsSchema) },
      400: invalidIntegerId,
      ...commonErrors,
      404: error('`Meeting not found`'),
    },
    async handler(ctx, { params }, deps) {
      const log = await meetingEventLog(deps.db, requireAuth(ctx), params.id);
      ctx.body = {
        meeting_id: log.meeting.id,
        events: log.transitions.map(meetingEventJson),
        participant_events: log.participantEvents.map(participantEventJson),
      };
    },
  }),

  route({
    method: 'get',
    path: '/meetings/:id/chat',
    auth: userAuth,
    params: meetingIdParams,
    query: (limits) => listMeetingsQuery(limits.pageSizes),
    summary: "The meeting's chat as its bot read it, in the meeting's order (beyond the spec)",
    parameters: (limits) => [
      integerIdParameter,
      limitParameter('limit', limits.pageSizes),
      offsetParameter('offset'),
    ],
    responses: {
      200: { description: 'Chat messages', ...json(chatMessagesSchema) },
      400: invalidIntegerId,
      ...commonErrors,
      404: error('`Meeting not found`'),
    },
    async handler(ctx, { params, query }, deps) {
      const { meeting, messages } = await meetingChat(deps.db, requireAuth(ctx), params.id, query);
      ctx.body = { meeting_id: meeting.id, messages: messages.map(chatMessageJson) };
    },
  }),

  route({
    method: 'patch',
    path: '/meetings/:platform/:native_meeting_id',
    auth: userAuth,
    params: meetingRefParams,
    body: updateMeetingDataRequest,
    summary: 'Update Meeting Data (latest meeting with this id); null removes a member',
    parameters: meetingRefParameters,
    responses: (limits) => ({
      200: { description: 'The meeting after the update', ...json(updatedMeetingSchema) },
      400: error('Invalid input'),
      ...commonErrors,
      404: error('`Meeting not found`'),
      413: error(
        `The meeting's data would take more than ${limits.meetingDataMaxBytes} bytes; nothing changed`,
      ),
    }),
    async handler(ctx, { params, body }, deps) {
      const meeting = await updateMeetingData(
        deps.db,
        requireAuth(ctx),
        params.platform,
        params.native_meeting_id,
        body.data,
        deps.dataMaxBytes,
      );
      ctx.body = updatedMeetingJson(meeting);
    },
  }),

  route({
    method: 'delete',
    path: '/meetings/:platform/:native_meeting_id',
    auth: userAuth,
    params: meetingRefParams,
    summary:
      'Delete the finished meetings with this id, their transcripts, metadata and recordings (their files too)',
    parameters: meetingRefParameters,
    responses: {
      200: { description: 'Deleted', ...json(deletedMeetingsSchema) },
      400: invalidMeetingRef,
      ...commonErrors,
      404: error('`Meeting not found`'),
      409: error('A bot is still running for this meeting'),
    },
    async handler(ctx, { params }, deps) {
      const ids = await deleteMeetingData(
        { db: deps.db, storage: deps.recordingStorage, log: ctx.state.log },
        requireAuth(ctx),
        params.platform,
        params.native_meeting_id,
      );
      ctx.body = { message: 'Meeting data deleted', deleted_meeting_ids: ids };
    },
  }),
];
