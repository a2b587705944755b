export interface SseEvent {
  id: string | undefined;
  event: string;
  // biome-ignore lint/suspicious/noExplicitAny: events carry JSON
  data: any;
}

export interface SseClient {
  status: number;
  events: SseEvent[];
  /** Resolves when the server closes the stream. */
  ended: Promise<void>;
  waitFor(predicate: (events: SseEvent[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** A minimal EventSource over fetch (it can send X-API-Key, which EventSource can't). */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseClient> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const events: SseEvent[] = [];
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of listeners) listener();
  };
  const ended = (async () => {
    if (!response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let boundary = buffer.indexOf('\n\n');
        while (boundary >= 0) {
          const block = buffer.slice(0, boundary);
          buffer = buffer.slice(boundary + 2);
          boundary = buffer.indexOf('\n\n');
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (!line || line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
          }
          if (fields.data === undefined) continue;
          events.push({ id: fields.id, event: fields.event ?? 'message', data: JSON.parse(fields.data) });
          notify();
        }
      }
    } catch {
      // Aborted by the client, or the server went away: either way the stream is over.
    } finally {
      notify();
    }
  })();
  let done = false;
  void ended.then(() => {
    done = true;
    notify();
  });
  return {
    status: response.status,
    events,
    ended,
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(events)) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve();
          } else if (done) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(
              new Error(
                `stream ended before the expected events; got ${JSON.stringify(events.map((e) => e.event))}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for stream events; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}
