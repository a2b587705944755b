import { calendarFeedJson } from '../../../shared/calendars/serialize.js';
import {
  type CalendarFeedDeps,
  changeCalendarFeed,
  createCalendarFeed,
  deleteCalendarFeed,
  getCalendarFeed,
  listCalendarFeeds,
} from '../../../shared/calendars/service.js';
import { DEFAULT_FEED_MARKER } from '../../../shared/calendars/store.js';
import { calendarFeedListSchema, calendarFeedSchema } from '../../../shared/calendars/wire.js';
import { requireAuth } from '../../context.js';
import { commonErrors, error, json } from '../../openapi/responses.js';
import { integerIdParameter, invalidIntegerId } from '../path-params.js';
import { routesOf, userAuth } from '../route.js';
import {
  calendarFeedIdParams,
  createCalendarFeedRequest,
  feedChangesOf,
  updateCalendarFeedRequest,
} from './schema.js';

const route = routesOf<CalendarFeedDeps>();
const notFound = error('`Calendar feed not found` (also for another user’s feed)');
const feedAnswer = (description: string) => ({ description, ...json(calendarFeedSchema) });

/**
 * The caller's calendar feeds: iCalendar URLs the workers poll, scheduling a bot for each event with
 * a Meet or Teams link (docs/api.md, "Calendar feeds").
 */
export const calendarFeedRoutes = [
  route({
    method: 'post',
    path: '/calendar-feeds',
    auth: userAuth,
    body: createCalendarFeedRequest,
    summary: 'Register a calendar feed: its events with a meeting link get scheduled bots',
    description:
      'A worker fetches the feed within seconds, then every CALENDAR_FEED_POLL_INTERVAL_SECONDS; `last_poll` tells how it went.',
    responses: {
      201: feedAnswer('The feed, not polled yet (`last_poll` null)'),
      400: error(
        'Invalid input, or a URL the address rules refuse (`url: … is a private, loopback or link-local address; …`, `url: must be an https URL`)',
      ),
      ...commonErrors,
      409: error('The user has CALENDAR_FEED_MAX_PER_USER feeds already'),
    },
    async handler(ctx, { body }, deps) {
      const feed = await createCalendarFeed(deps, requireAuth(ctx).user.id, {
        url: body.url,
        botName: body.bot_name ?? null,
        events: body.events ?? 'all',
        marker: body.marker ?? DEFAULT_FEED_MARKER,
      });
      ctx.status = 201;
      ctx.body = calendarFeedJson(feed);
    },
  }),

  route({
    method: 'get',
    path: '/calendar-feeds',
    auth: userAuth,
    summary: 'Your calendar feeds, oldest first, each with how its last poll went',
    responses: { 200: { description: 'Feeds', ...json(calendarFeedListSchema) }, ...commonErrors },
    async handler(ctx, _input, deps) {
      const feeds = await listCalendarFeeds(deps, requireAuth(ctx).user.id);
      ctx.body = { calendar_feeds: feeds.map(calendarFeedJson) };
    },
  }),

  route({
    method: 'get',
    path: '/calendar-feeds/:id',
    auth: userAuth,
    params: calendarFeedIdParams,
    summary: 'One calendar feed, with how its last poll went',
    parameters: [integerIdParameter],
    responses: { 200: feedAnswer('The feed'), 400: invalidIntegerId, ...commonErrors, 404: notFound },
    async handler(ctx, { params }, deps) {
      ctx.body = calendarFeedJson(await getCalendarFeed(deps, requireAuth(ctx).user.id, params.id));
    },
  }),

  route({
    method: 'patch',
    path: '/calendar-feeds/:id',
    auth: userAuth,
    params: calendarFeedIdParams,
    body: updateCalendarFeedRequest,
    summary: 'Change a calendar feed (only the members sent); it is polled again within seconds',
    description:
      'Bots already scheduled follow at that poll: an event the new choice or marker leaves out loses its waiting bot. A new bot_name applies to bots scheduled from then on.',
    parameters: [integerIdParameter],
    responses: {
      200: feedAnswer('The feed as changed'),
      400: error('Invalid input or id, or a URL the address rules refuse'),
      ...commonErrors,
      404: notFound,
    },
    async handler(ctx, { params, body }, deps) {
      ctx.body = calendarFeedJson(
        await changeCalendarFeed(deps, requireAuth(ctx).user.id, params.id, feedChangesOf(body)),
      );
    },
  }),

  route({
    method: 'delete',
    path: '/calendar-feeds/:id',
    auth: userAuth,
    params: calendarFeedIdParams,
    summary:
      'Delete a calendar feed; its bots still waiting for their time are cancelled (launched bots go on)',
    parameters: [integerIdParameter],
    responses: { 204: { description: 'Deleted' }, 400: invalidIntegerId, ...commonErrors, 404: notFound },
    async handler(ctx, { params }, deps) {
      await deleteCalendarFeed(deps, requireAuth(ctx).user.id, params.id);
      ctx.status = 204;
    },
  }),
];
