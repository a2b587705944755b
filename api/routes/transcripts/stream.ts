import { participantEventJson } from '../../../shared/participants/serialize.js';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { chatMessageJson } from '../../../shared/chat/serialize.js';
import { ServiceUnavailableError } from '../../../shared/infra/errors.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { MeetingChangeListener } from '../../../shared/meetings/changes.js';
import { statusEventJson } from '../../../shared/meetings/serialize.js';
import { latestMeeting } from '../../../shared/meetings/service.js';
import { liveSegmentJson } from '../../../shared/transcripts/serialize.js';
import { requireAuth } from '../../context.js';
import { formatCursor, HISTORY_START, type LiveCursor, parseCursor } from '../../live/cursor.js';
import { LiveFeed, type LiveFeedOptions, type LiveItem } from '../../live/feed.js';
import type { OpenFeeds } from '../../live/open-feeds.js';
import type { LiveSlots } from '../../live/slots.js';
import { commonErrors, error } from '../../openapi/responses.js';
import { invalidMeetingRef, meetingRefParameters, meetingRefParams } from '../path-params.js';
import { routesOf, userAuth } from '../route.js';

export interface StreamOptions extends LiveFeedOptions {
  heartbeatMs: number;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = { pollMs: 2000, endQuietMs: 5000, heartbeatMs: 15_000 };

export interface TranscriptStreamDeps {
  db: Knex;
  changes: MeetingChangeListener;
  slots: LiveSlots;
  options: StreamOptions;
  /** The process's open live connections, ended on shutdown. */
  openFeeds: OpenFeeds;
}

/** An event's name and data on the stream. */
function eventOf(item: LiveItem): { event: string; data: unknown } {
  switch (item.kind) {
    case 'segment':
      return { event: 'segment', data: liveSegmentJson(item.segment) };
    case 'status':
      return { event: 'status', data: statusEventJson(item.transition) };
    case 'chat':
      return { event: 'chat', data: chatMessageJson(item.message) };
    case 'participant':
      return { event: 'participant', data: participantEventJson(item.event) };
  }
}

/**
 * GET /transcripts/{platform}/{native_meeting_id}/stream — Server-Sent Events: the meeting's status
 * history and current transcript, then every new or changed segment (`segment`), every status
 * change (`status`), every chat message the bot read (`chat`) and every participant event
 * (`participant`: joined, left, speech started or stopped) as they are committed, and `end`
 * once the meeting has ended and gone quiet. Every event's id is a position in Postgres, so a client
 * reconnecting with Last-Event-ID misses nothing, on whichever API replica it lands.
 */
export const transcriptStreamRoute = routesOf<TranscriptStreamDeps>()({
  method: 'get',
  path: '/transcripts/:platform/:native_meeting_id/stream',
  auth: userAuth,
  params: meetingRefParams,
  summary:
    'Follow the transcript live (Server-Sent Events): status history and current segments, then every committed change, then `end`',
  parameters: [
    ...meetingRefParameters,
    {
      name: 'Last-Event-ID',
      in: 'header',
      required: false,
      schema: { type: 'string' },
      description: 'Resume after this event: only what changed since is sent',
    },
  ],
  responses: (limits) => ({
    200: {
      description: 'Events `status`, `segment`, `chat` and `end`; `: keep-alive` comments every 15 s',
      content: { 'text/event-stream': { schema: { type: 'string' } } },
    },
    400: invalidMeetingRef,
    ...commonErrors,
    404: error('`Meeting not found`'),
    429: error(
      `${limits.liveStreamsPerUser} live streams of this user are open already; or a rate limit (see the other answers)`,
    ),
  }),
  async handler(ctx, { params }, deps) {
    const { options } = deps;
    const auth = requireAuth(ctx);
    const meeting = await latestMeeting(deps.db, auth, params.platform, params.native_meeting_id);
    let position: LiveCursor = parseCursor(ctx.get('Last-Event-ID')) ?? { ...HISTORY_START };
    if (deps.openFeeds.closing) throw new ServiceUnavailableError('Shutting down; reconnect in a moment');
    const slot = await deps.slots.acquire(auth.user.id);
    // Subscribed before the first read: whatever is committed after that read wakes this stream.
    await deps.changes.start().catch(async (error: unknown) => {
      await slot.release();
      throw error;
    });

    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.status = 200;
    ctx.set({
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
    });
    const stream = new PassThrough();
    ctx.body = stream;

    const send = (event: string, data: unknown) => {
      stream.write(`id: ${formatCursor(position)}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    let closed = false;
    const feed = new LiveFeed({
      db: deps.db,
      changes: deps.changes,
      options,
      sink: {
        changes(_meetingId, items) {
          for (const item of items) {
            position = item.cursor;
            const { event, data } = eventOf(item);
            send(event, data);
          }
        },
        ended(_meetingId, status) {
          // A deleted meeting's stream just ends.
          if (status) send('end', { status });
          close();
        },
        ready: async () => {
          if (stream.writableNeedDrain) await once(stream, 'drain');
        },
      },
    });
    const heartbeat = setInterval(() => {
      stream.write(': keep-alive\n\n');
      void slot.refresh();
    }, options.heartbeatMs);
    const unregister = deps.openFeeds.register(() => close());
    function close() {
      if (closed) return;
      closed = true;
      feed.close();
      clearInterval(heartbeat);
      unregister();
      void slot.release();
      stream.end();
    }
    ctx.req.on('close', close);
    stream.on('close', close);
    feed.follow(meeting.id, position);
    feed.done.catch((failure: unknown) => {
      ctx.state.log.error({ err: failure, meetingId: meeting.id }, 'transcript stream failed');
      close();
    });
  },
});
