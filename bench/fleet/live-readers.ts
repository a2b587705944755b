/**
 * The live readers of the fleet bench: SSE streams (`GET /transcripts/{platform}/{id}/stream`, one
 * meeting each) and WebSockets (`/ws`, subscribed to many meetings each), as clients of the API
 * would hold them. Each segment they get is timed from its publish time (the simulated bot puts
 * it in `absolute_end_time`) to its arrival; the WebSocket's `updated_at` also times every revision's
 * commit. Only segments published inside the measured window count (the history sent on connecting
 * does not).
 */
import { get } from 'node:http';
import { WebSocket } from 'ws';

export interface ReaderFigures {
  /** Publish → received by the reader, ms. */
  delivery: number[];
  /** Publish → committed (`updated_at`), ms: the WebSocket's frames carry it. */
  commit: number[];
  segments: number;
  frames: number;
  errors: number;
  closed: number;
  lastError: string | null;
}

function newFigures(): ReaderFigures {
  return { delivery: [], commit: [], segments: 0, frames: 0, errors: 0, closed: 0, lastError: null };
}

/** The window in which a segment's publish time must fall for its timings to count. */
export interface Window {
  from: number;
  to: number;
}

interface LiveSegment {
  absolute_end_time: string;
  updated_at?: string;
}

function time(figures: ReaderFigures, segment: LiveSegment, window: Window, receivedAt: number): void {
  figures.segments += 1;
  const published = Date.parse(segment.absolute_end_time);
  if (!(published >= window.from && published <= window.to)) return;
  figures.delivery.push(receivedAt - published);
  if (segment.updated_at) figures.commit.push(Date.parse(segment.updated_at) - published);
}

export interface Reader {
  figures: ReaderFigures;
  close(): void;
}

/** One SSE stream of one meeting, until closed or the meeting ends. */
export function openSseReader(
  base: string,
  key: string,
  meeting: { platform: string; nativeId: string },
  window: Window,
): Reader {
  const figures = newFigures();
  let closing = false;
  // node:http rather than fetch: destroying the request closes its socket at once, which an aborted
  // fetch does not always do (the API would then wait for the connection at shutdown).
  const request = get(
    `${base}/transcripts/${meeting.platform}/${meeting.nativeId}/stream`,
    { headers: { Accept: 'text/event-stream', 'X-API-Key': key } },
    (response) => {
      if (response.statusCode !== 200) {
        figures.errors += 1;
        figures.lastError = `SSE answered ${response.statusCode}`;
        response.resume();
        return;
      }
      response.setEncoding('utf8');
      let buffer = '';
      response.on('data', (chunk: string) => {
        const receivedAt = Date.now();
        buffer += chunk;
        let boundary = buffer.indexOf('\n\n');
        while (boundary >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf('\n\n');
          let event = 'message';
          let data: string | undefined;
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data = line.slice(5).trim();
          }
          if (data === undefined) continue;
          figures.frames += 1;
          if (event === 'segment') time(figures, JSON.parse(data) as LiveSegment, window, receivedAt);
        }
      });
      response.on('end', () => {
        if (!closing) figures.closed += 1;
      });
    },
  );
  request.on('error', (error) => {
    if (closing) return;
    figures.errors += 1;
    figures.lastError = error.message;
  });
  return {
    figures,
    close: () => {
      closing = true;
      request.destroy();
    },
  };
}

/** One WebSocket subscribed to `meetingIds` (at most WS_SUBSCRIPTIONS_PER_SOCKET of them). */
export function openWsReader(base: string, key: string, meetingIds: number[], window: Window): Reader {
  const figures = newFigures();
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/ws`, { headers: { 'X-API-Key': key } });
  let closing = false;
  socket.on('open', () => {
    socket.send(
      JSON.stringify({ action: 'subscribe', meetings: meetingIds.map((id) => ({ meeting_id: id })) }),
    );
  });
  socket.on('message', (raw) => {
    const receivedAt = Date.now();
    figures.frames += 1;
    const frame = JSON.parse(raw.toString()) as {
      type: string;
      error?: string;
      details?: string;
      payload?: { segments?: LiveSegment[] };
    };
    if (frame.type === 'transcript.mutable') {
      for (const segment of frame.payload?.segments ?? []) time(figures, segment, window, receivedAt);
    } else if (frame.type === 'error') {
      figures.errors += 1;
      figures.lastError = `${frame.error}: ${frame.details ?? ''}`;
    }
  });
  socket.on('error', (error) => {
    figures.errors += 1;
    figures.lastError = error.message;
  });
  socket.on('close', (code) => {
    if (closing) return;
    figures.closed += 1;
    if (code !== 1000) figures.lastError = `closed with ${code}`;
  });
  return {
    figures,
    close: () => {
      closing = true;
      socket.close();
    },
  };
}
