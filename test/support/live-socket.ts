import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

/** A frame the API sent on /ws. */
// biome-ignore lint/suspicious/noExplicitAny: frames carry JSON
export type Frame = Record<string, any>;

export interface LiveSocketClient {
  ws: WebSocket;
  /** Every frame received, in order. */
  frames: Frame[];
  /** Resolves with the close code and reason once the socket is closed (by either side). */
  closed: Promise<{ code: number; reason: string }>;
  send(message: unknown): void;
  /** Waits until `predicate` holds for the frames so far; fails with them when it never does or the socket closes. */
  waitFor(predicate: (frames: Frame[]) => boolean, timeoutMs?: number): Promise<void>;
  /** The first frame after `from` (an index into frames) that `predicate` accepts, waiting for it. */
  next(predicate: (frame: Frame) => boolean, from?: number, timeoutMs?: number): Promise<Frame>;
  /** Sends `{"action": "ping"}` and waits for its pong: every frame the API sent before it is in by then. */
  roundTrip(): Promise<void>;
  close(): void;
}

export interface RefusedUpgrade {
  status: number;
  headers: IncomingMessage['headers'];
  // biome-ignore lint/suspicious/noExplicitAny: error bodies are JSON
  body: any;
}

/** The ws URL of an API's /ws, with an optional query. */
export function socketUrl(baseUrl: string, query = ''): string {
  return `${baseUrl.replace(/^http/, 'ws')}/ws${query}`;
}

/**
 * Opens /ws as a client program does (the `ws` package), resolving once open; rejects with the
 * API's answer (status and JSON body) when it refuses the upgrade.
 */
export function openLiveSocket(
  url: string,
  options: { headers?: Record<string, string>; autoPong?: boolean } = {},
): Promise<LiveSocketClient> {
  const ws = new WebSocket(url, {
    headers: options.headers ?? {},
    autoPong: options.autoPong ?? true,
  });
  const frames: Frame[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  let isClosed = false;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.on('close', (code, reason) => {
      isClosed = true;
      resolve({ code, reason: reason.toString() });
      notify();
    });
  });
  ws.on('message', (data) => {
    frames.push(JSON.parse(data.toString()) as Frame);
    notify();
  });
  const waitFor: LiveSocketClient['waitFor'] = (predicate, timeoutMs = 20_000) =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (predicate(frames)) {
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        } else if (isClosed) {
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`socket closed before the expected frames; got ${JSON.stringify(frames)}`));
        }
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`timed out waiting for frames; got ${JSON.stringify(frames)}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  const client: LiveSocketClient = {
    ws,
    frames,
    closed,
    send(message) {
      ws.send(typeof message === 'string' ? message : JSON.stringify(message));
    },
    waitFor,
    async next(predicate, from = 0, timeoutMs) {
      await waitFor((all) => all.slice(from).some(predicate), timeoutMs);
      return frames.slice(from).find(predicate)!;
    },
    async roundTrip() {
      const from = frames.length;
      client.send({ action: 'ping' });
      await client.next((frame) => frame.type === 'pong', from);
    },
    close() {
      ws.close();
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('unexpected-response', (_request, response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () => {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        const refused: RefusedUpgrade = { status: response.statusCode ?? 0, headers: response.headers, body };
        reject(Object.assign(new Error(`upgrade refused: ${response.statusCode} ${text}`), { refused }));
      });
    });
    ws.once('error', (error) => {
      if (ws.readyState !== WebSocket.OPEN) setTimeout(() => reject(error), 50);
    });
  });
}

/** The API's answer to an upgrade it refused (openLiveSocket's rejection). */
export async function refusedUpgrade(opening: Promise<LiveSocketClient>): Promise<RefusedUpgrade> {
  try {
    const client = await opening;
    client.close();
  } catch (error) {
    const refused = (error as { refused?: RefusedUpgrade }).refused;
    if (refused) return refused;
    throw error;
  }
  throw new Error('the upgrade was not refused');
}

/** The transcript a client builds from transcript.mutable frames: the latest copy of each segment id, chronological. */
export function transcriptFromFrames(frames: Frame[], meetingId: number) {
  const bySegment = new Map<string, Frame>();
  for (const frame of frames) {
    if (frame.type !== 'transcript.mutable' || frame.meeting.id !== meetingId) continue;
    for (const segment of frame.payload.segments) bySegment.set(segment.segment_id, segment);
  }
  return [...bySegment.values()]
    .sort((a, b) => a.start - b.start)
    .map(
      ({ segment_id: _id, final: _final, completed: _completed, updated_at: _updated, ...segment }) =>
        segment,
    );
}

/** The texts of every segment copy received for a meeting, in order. */
export function segmentTexts(frames: Frame[], meetingId?: number): string[] {
  return frames
    .filter(
      (frame) =>
        frame.type === 'transcript.mutable' && (meetingId === undefined || frame.meeting.id === meetingId),
    )
    .flatMap((frame) => frame.payload.segments.map((segment: Frame) => segment.text));
}
