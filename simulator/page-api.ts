import { readFile } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { Router } from '@koa/router';
import { z } from 'zod';
import { notFound } from './errors.js';
import { meetingIdParam, parseOr400, readJson } from './http.js';
import type { Meeting } from './meeting.js';
import { type NotFoundReason, type PageEvent, pageAction, sessionQuery } from './page-protocol.js';
import type { PageConnection } from './page-session.js';
import type { MeetingRegistry } from './registry.js';
import { SIM_ACCOUNT_COOKIE } from './schema.js';

const KEEPALIVE_MS = 15_000;

/** Open event streams, so the server can end them when it closes. */
export type OpenStreams = Set<PassThrough>;

/**
 * What the meeting pages talk to: a server-sent event stream per page (the meeting's state pushed
 * to it, and how the simulator notices a page going away), their action reports, and speech audio.
 */
export function pageRouter(registry: MeetingRegistry, streams: OpenStreams): Router {
  const router = new Router({ prefix: '/_sim' });

  router.get('/events', (ctx) => {
    const query = parseOr400(sessionQuery, ctx.query);
    const stream = new PassThrough();
    streams.add(stream);
    ctx.req.socket.setTimeout(0);
    ctx.req.socket.setNoDelay(true);
    ctx.set({ 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    ctx.status = 200;
    ctx.body = stream;
    stream.write('retry: 1000\n\n');
    const connection: PageConnection = {
      send: (event) => {
        if (!stream.writableEnded)
          stream.write(`event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`);
      },
    };
    const keepalive = setInterval(() => stream.write(': keepalive\n\n'), KEEPALIVE_MS);
    const meeting = registry.find(query.id);
    const reason = whyNotJoinable(meeting, query);
    if (reason || !meeting) {
      connection.send({
        event: 'hello',
        data: { found: false, reason: reason ?? 'unknown' },
      } satisfies PageEvent);
    } else {
      meeting.connect(query.sid, connection, ctx.cookies.get(SIM_ACCOUNT_COOKIE) ?? null);
    }
    ctx.req.on('close', () => {
      clearInterval(keepalive);
      streams.delete(stream);
      stream.end();
      meeting?.disconnect(query.sid, connection);
    });
  });

  router.post('/meetings/:id/sessions/:sid/actions', async (ctx) => {
    const id = parseOr400(meetingIdParam, ctx.params.id);
    const sid = parseOr400(sessionQuery.shape.sid, ctx.params.sid);
    const action = await readJson(ctx, pageAction);
    registry.get(id).act(sid, action);
    ctx.status = 204;
  });

  router.get('/audio/:file', async (ctx) => {
    const audioId = parseOr400(z.string().regex(/^[0-9a-f-]{36}\.wav$/), ctx.params.file).slice(0, -4);
    const clip = registry.clip(audioId);
    if (!clip) throw notFound('audio');
    ctx.set('Cache-Control', 'private, max-age=3600');
    ctx.type = 'audio/wav';
    ctx.body = await readFile(clip.path);
  });

  return router;
}

function whyNotJoinable(
  meeting: Meeting | undefined,
  query: z.infer<typeof sessionQuery>,
): NotFoundReason | null {
  if (!meeting || meeting.platform !== query.platform) return 'unknown';
  if (meeting.passcode !== null && meeting.passcode !== query.p) return 'bad_passcode';
  return null;
}
