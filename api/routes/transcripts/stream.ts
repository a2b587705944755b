import { PassThrough } from 'node:stream';
import { isTerminal } from '../../../shared/contract/meeting-status.js';
import type { Knex } from '../../../shared/infra/knex.js';
import type { MeetingChangeListener } from '../../../shared/meetings/changes.js';
import { statusEventJson } from '../../../shared/meetings/serialize.js';
import { latestMeeting } from '../../../shared/meetings/service.js';
import { type LiveCursor, liveChangesSince } from '../../../shared/transcripts/live.js';
import { liveSegmentJson } from '../../../shared/transcripts/serialize.js';
import { requireAuth } from '../../context.js';
import { commonErrors, error } from '../../openapi/responses.js';
import { invalidMeetingRef, meetingRefParameters, meetingRefParams } from '../path-params.js';
import { routesOf, userAuth } from '../route.js';
import type { StreamSlots } from './stream-slots.js';

export interface StreamOptions {
  /** Re-read Postgres this often even without an announcement (a lost one only delays an update). */
  pollMs: number;
  /** After the meeting ended, close once nothing changed for this long (late segments still arrive). */
  endQuietMs: number;
  heartbeatMs: number;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = { pollMs: 2000, endQuietMs: 5000, heartbeatMs: 15_000 };

function parseLastEventId(header: string): LiveCursor | undefined {
  const match = /^(\d{1,18})-(\d{1,18})$/.exec(header.trim());
  return match ? { transition: Number(match[1]), segment: Number(match[2]) } : undefined;
}

export interface TranscriptStreamDeps {
  db: Knex;
  changes: MeetingChangeListener;
  slots: StreamSlots;
  options: StreamOptions;
}

/**
 * GET /transcripts/{platform}/{native_meeting_id}/stream — Server-Sent Events: the meeting's status
 * history and current transcript, then every new or changed segment (`segment`) and every status
 * change (`status`) as they are committed, and `end` once the meeting has ended and gone quiet.
 * Every event's id is a position in Postgres, so a client reconnecting with Last-Event-ID misses
 * nothing, on whichever API replica it lands.
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
      description: 'Events `status`, `segment` and `end`; `: keep-alive` comments every 15 s',
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
    const meeting = await latestMeeting(deps.db, requireAuth(ctx), params.platform, params.native_meeting_id);
    const cursor = parseLastEventId(ctx.get('Last-Event-ID')) ?? { transition: 0, segment: 0 };
    const slot = await deps.slots.acquire(requireAuth(ctx).user.id);
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

    let closed = false;
    let changedWhileReading = false;
    let wake: (() => void) | undefined;
    const wakeUp = () => {
      changedWhileReading = true;
      wake?.();
    };
    const stopListening = deps.changes.listen(meeting.id, wakeUp);
    const heartbeat = setInterval(() => {
      stream.write(': keep-alive\n\n');
      void slot.refresh();
    }, options.heartbeatMs);
    const close = () => {
      if (closed) return;
      closed = true;
      stopListening();
      clearInterval(heartbeat);
      void slot.release();
      wakeUp();
    };
    ctx.req.on('close', close);
    stream.on('close', close);

    const send = (event: string, data: unknown) => {
      stream.write(
        `id: ${cursor.transition}-${cursor.segment}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`,
      );
    };

    const run = async () => {
      let lastChangeAt = 0;
      while (!closed) {
        changedWhileReading = false;
        const {
          segments,
          transitions,
          meeting: current,
        } = await liveChangesSince(deps.db, meeting.id, cursor);
        for (const segment of segments) {
          cursor.segment = segment.changeSeq;
          send('segment', liveSegmentJson(segment));
        }
        for (const transition of transitions) {
          cursor.transition = transition.id;
          send('status', statusEventJson(transition));
        }
        if (segments.length > 0 || transitions.length > 0) lastChangeAt = Date.now();
        if (!current) break;
        const ended = isTerminal(current.status);
        if (ended) {
          const quietSince = Math.max(lastChangeAt, current.endTime?.getTime() ?? 0);
          if (Date.now() - quietSince >= options.endQuietMs) {
            send('end', { status: current.status });
            break;
          }
        }
        if (changedWhileReading) continue;
        await new Promise<void>((resolve) => {
          // Once the meeting has ended, look again soon enough to close the stream on time.
          const timer = setTimeout(
            resolve,
            ended ? Math.min(options.pollMs, options.endQuietMs) : options.pollMs,
          );
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    };
    run()
      .catch((error: unknown) =>
        ctx.state.log.error({ err: error, meetingId: meeting.id }, 'transcript stream failed'),
      )
      .finally(() => {
        close();
        stream.end();
      });
  },
});
