import type { ServerResponse } from 'node:http';
import { badRequest, expired } from './api-errors.js';
import type { ObjectStore, Resource, StoreEvent } from './object-store.js';
import type { KubeObject } from './objects.js';

/**
 * Watches as the API server serves them
 * (https://kubernetes.io/docs/reference/using-api/api-concepts/#efficient-detection-of-changes):
 * one HTTP 200 response of newline-delimited JSON events `{type, object}`.
 * - No resourceVersion (or "0"): first a synthetic ADDED for every object that matches, then changes.
 * - A resourceVersion: every change after it, from the retained history; one older than the
 *   history is answered with an ERROR event holding a 410 Expired Status, and the stream ends.
 * - Through a selector, an object that starts matching arrives as ADDED and one that stops
 *   matching as DELETED (the watch cache's rule), with the change's resourceVersion.
 * - allowWatchBookmarks: BOOKMARK events now and then carry the latest resourceVersion in an object
 *   with only that metadata. sendInitialEvents ends the initial ADDED events with a bookmark
 *   annotated `k8s.io/initial-events-end`.
 * - timeoutSeconds ends the stream cleanly; so does dropAll (what a restarting API server does).
 */
export interface WatchRequest {
  resource: Resource;
  namespace: string | undefined;
  kind: string;
  apiVersion: string;
  matches(object: KubeObject): boolean;
  resourceVersion: string | undefined;
  allowBookmarks: boolean;
  sendInitialEvents: boolean;
  timeoutSeconds: number | undefined;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** The watch cache's filter: ADDED or DELETED when an object starts or stops matching. */
function visible(
  event: StoreEvent,
  matches: (object: KubeObject) => boolean,
): { type: EventType; object: KubeObject } | undefined {
  const now = event.type !== 'DELETED' && matches(event.object);
  const before = event.previous !== undefined && matches(event.previous);
  if (event.type === 'DELETED') return before ? { type: 'DELETED', object: event.object } : undefined;
  if (now && !before) return { type: 'ADDED', object: event.object };
  if (now && before) return { type: 'MODIFIED', object: event.object };
  if (before) {
    const last = structuredClone(event.previous!);
    last.metadata.resourceVersion = String(event.resourceVersion);
    return { type: 'DELETED', object: last };
  }
  return undefined;
}

export class WatchStreams {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly store: ObjectStore,
    private readonly bookmarkIntervalMs: number,
  ) {}

  get count(): number {
    return this.open.size;
  }

  /** Ends every open watch, as when the API server restarts: clients must resume. */
  dropAll(): void {
    for (const close of [...this.open]) close();
  }

  serve(response: ServerResponse, request: WatchRequest): void {
    const version = request.resourceVersion;
    if (version && !/^\d+$/.test(version))
      throw badRequest(
        `resourceVersion: Invalid value: ${JSON.stringify(version)}: must be a non-negative integer`,
      );
    const typed = (object: KubeObject): KubeObject => ({
      apiVersion: request.apiVersion,
      kind: request.kind,
      ...object,
    });
    const send = (type: EventType, object: unknown) => {
      response.write(`${JSON.stringify({ type, object })}\n`);
    };
    const bookmark = (annotations?: Record<string, string>) =>
      send('BOOKMARK', {
        apiVersion: request.apiVersion,
        kind: request.kind,
        metadata: { resourceVersion: String(this.store.currentVersion), ...(annotations && { annotations }) },
      });

    response.writeHead(200, {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-cache, private',
      'Transfer-Encoding': 'chunked',
    });
    response.flushHeaders();

    const fromStart = !version || version === '0' || request.sendInitialEvents;
    if (fromStart) {
      for (const object of this.store.list(request.resource, request.namespace))
        if (request.matches(object)) send('ADDED', typed(object));
      if (request.sendInitialEvents && request.allowBookmarks)
        bookmark({ 'k8s.io/initial-events-end': 'true' });
    } else {
      const history = this.store.eventsSince(Number(version));
      if (!history) {
        send(
          'ERROR',
          expired(`too old resource version: ${version} (${this.store.oldestWatchableVersion + 1})`).status(),
        );
        response.end();
        return;
      }
      for (const event of history) this.forward(event, request, send, typed);
    }

    // From a version not reached yet, the changes up to it are not this watch's.
    const after = fromStart ? 0 : Number(version);
    const unsubscribe = this.store.subscribe((event) => {
      if (event.resourceVersion > after) this.forward(event, request, send, typed);
    });
    const timers: NodeJS.Timeout[] = [];
    if (request.allowBookmarks) timers.push(setInterval(() => bookmark(), this.bookmarkIntervalMs));
    if (request.timeoutSeconds !== undefined)
      timers.push(setTimeout(() => close(), request.timeoutSeconds * 1000));
    const close = () => {
      if (!this.open.delete(close)) return;
      unsubscribe();
      for (const timer of timers) clearTimeout(timer);
      if (!response.writableEnded) response.end();
    };
    this.open.add(close);
    response.on('close', close);
  }

  private forward(
    event: StoreEvent,
    request: WatchRequest,
    send: (type: EventType, object: unknown) => void,
    typed: (object: KubeObject) => KubeObject,
  ): void {
    if (event.resource !== request.resource) return;
    if (request.namespace !== undefined && event.object.metadata.namespace !== request.namespace) return;
    const shown = visible(event, request.matches);
    if (shown) send(shown.type, typed(shown.object));
  }
}
