import { type Api, ApiError } from './client.js';
import { SseParser } from './sse.js';
import type { ChatMessage, LiveSegment, StatusEvent } from './types.js';

export interface LiveHandlers {
  segment(segment: LiveSegment): void;
  status(event: StatusEvent): void;
  chat(message: ChatMessage): void;
  /** The meeting ended and went quiet: the stream is over. */
  end(): void;
  /** Connected (again): `resumed` when it carried on from an earlier event. */
  connected?(resumed: boolean): void;
  /** The stream broke; it reconnects after `retryInMs` unless `retryInMs` is undefined (given up). */
  problem?(error: Error, retryInMs: number | undefined): void;
}

const RETRY_MS = [1000, 2000, 5000, 10_000];

/**
 * Follows GET /transcripts/{platform}/{id}/stream with fetch() (the key in X-API-Key) until `end`
 * or until `signal` aborts. A broken connection is resumed with Last-Event-ID, so nothing is missed
 * or sent twice; 401, 403 and 404 give up.
 */
export async function followMeeting(
  api: Api,
  ref: string,
  handlers: LiveHandlers,
  signal: AbortSignal,
): Promise<void> {
  let lastId: string | undefined;
  let failures = 0;
  while (!signal.aborted) {
    let ended = false;
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      if (lastId) headers['Last-Event-ID'] = lastId;
      const response = await api.fetch(`/transcripts/${ref}/stream`, { headers, signal });
      if (!response.body) throw new Error('the stream has no body');
      handlers.connected?.(lastId !== undefined);
      const parser = new SseParser();
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        failures = 0;
        for (const event of parser.push(value)) {
          lastId = event.id ?? lastId;
          if (event.event === 'end') {
            ended = true;
            handlers.end();
          } else if (event.event === 'segment') handlers.segment(JSON.parse(event.data) as LiveSegment);
          else if (event.event === 'status') handlers.status(JSON.parse(event.data) as StatusEvent);
          else if (event.event === 'chat') handlers.chat(JSON.parse(event.data) as ChatMessage);
        }
      }
      if (ended) return;
    } catch (error) {
      if (signal.aborted) return;
      const fatal = error instanceof ApiError && [401, 403, 404].includes(error.status);
      const retryInMs = fatal ? undefined : RETRY_MS[Math.min(failures, RETRY_MS.length - 1)]!;
      handlers.problem?.(error as Error, retryInMs);
      if (retryInMs === undefined) return;
      failures += 1;
      await sleep(retryInMs, signal);
      continue;
    }
    // Closed without `end` (a proxy, a restart): resume where it stopped.
    await sleep(RETRY_MS[0]!, signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
