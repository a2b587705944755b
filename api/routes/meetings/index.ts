import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import type { Knex } from '../../../shared/infra/knex.js';
import type { ResponseCache } from '../../../shared/infra/response-cache.js';
import { meetingEventJson, updatedMeetingJson } from '../../../shared/meetings/serialize.js';
import { meetingHistory, meetingListAnswer, updateMeetingData } from '../../../shared/meetings/service.js';
import { meetingDetailJson } from '../../../shared/recordings/serialize.js';
import { deleteMeetingData, meetingDetail } from '../../../shared/recordings/service.js';
import type { RecordingStorage } from '../../../shared/recordings/storage.js';
import { type AppState, requireAuth } from '../../context.js';
import { parseInput } from '../../middleware/validate.js';
import { meetingRefParams } from '../path-params.js';
import { publicBaseUrl } from '../public-url.js';
import type { PageSizes } from '../query-params.js';
import { listMeetingsQuery, meetingIdParams, updateMeetingDataRequest } from './schema.js';

export interface MeetingsRouterDeps {
  db: Knex;
  requireUser: Middleware<AppState>;
  jsonBody: Middleware<AppState>;
  pageSizes: PageSizes;
  /** MEETING_DATA_MAX_BYTES */
  dataMaxBytes: number;
  /** Built answers, keyed by the version of what they show. */
  cache: ResponseCache;
  /** Where the meetings' recordings are kept (deleting a meeting removes them). */
  recordingStorage: RecordingStorage;
  /** PUBLIC_BASE_URL: where recordings' media URLs point (the request's origin when unset). */
  publicBaseUrl: string | undefined;
}

export function meetingsRouter(deps: MeetingsRouterDeps): Router<AppState> {
  const router = new Router<AppState>();
  const listQuery = listMeetingsQuery(deps.pageSizes);

  router.get('/meetings', deps.requireUser, async (ctx) => {
    const page = parseInput(listQuery, ctx.query, 'Query');
    ctx.type = 'application/json';
    ctx.body = await meetingListAnswer(deps.db, deps.cache, requireAuth(ctx), page);
  });

  router.get('/meetings/:id', deps.requireUser, async (ctx) => {
    const { id } = parseInput(meetingIdParams, ctx.params, 'Path');
    const { meeting, recordings } = await meetingDetail(deps.db, requireAuth(ctx), id);
    ctx.body = meetingDetailJson(meeting, recordings, publicBaseUrl(ctx, deps.publicBaseUrl));
  });

  router.get('/meetings/:id/events', deps.requireUser, async (ctx) => {
    const { id } = parseInput(meetingIdParams, ctx.params, 'Path');
    const { meeting, transitions } = await meetingHistory(deps.db, requireAuth(ctx), id);
    ctx.body = { meeting_id: meeting.id, events: transitions.map(meetingEventJson) };
  });

  router.patch('/meetings/:platform/:native_meeting_id', deps.requireUser, deps.jsonBody, async (ctx) => {
    const params = parseInput(meetingRefParams, ctx.params, 'Path');
    const { data } = parseInput(updateMeetingDataRequest, ctx.state.body);
    const meeting = await updateMeetingData(
      deps.db,
      requireAuth(ctx),
      params.platform,
      params.native_meeting_id,
      data,
      deps.dataMaxBytes,
    );
    ctx.body = updatedMeetingJson(meeting);
  });

  router.delete('/meetings/:platform/:native_meeting_id', deps.requireUser, async (ctx) => {
    const params = parseInput(meetingRefParams, ctx.params, 'Path');
    const ids = await deleteMeetingData(
      { db: deps.db, storage: deps.recordingStorage, log: ctx.state.log },
      requireAuth(ctx),
      params.platform,
      params.native_meeting_id,
    );
    ctx.body = { message: 'Meeting data deleted', deleted_meeting_ids: ids };
  });

  return router;
}
