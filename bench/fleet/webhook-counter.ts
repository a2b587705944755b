/**
 * The fleet bench's webhook endpoint on 127.0.0.1: answers 200 at once and counts deliveries by
 * type, duplicates (the same event id again) and, for events written inside the measured window,
 * the lag from the event's commit (`created_at`) to its arrival and, for `transcript.segments`, from
 * the newest segment's publish time (`absolute_end_time`) to its arrival.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Window } from './live-readers.js';

export interface WebhookFigures {
  received: number;
  byType: Record<string, number>;
  duplicates: number;
  /** Event written → received, ms (events written in the window). */
  lag: number[];
  /** Segment published → its `transcript.segments` delivery received, ms. */
  segmentLag: number[];
}

export class WebhookCounter {
  readonly figures: WebhookFigures = { received: 0, byType: {}, duplicates: 0, lag: [], segmentLag: [] };
  window: Window = { from: Number.POSITIVE_INFINITY, to: Number.POSITIVE_INFINITY };
  private readonly seen = new Set<string>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.writeHead(200, { 'Content-Type': 'text/plain' });
        response.end('ok');
        this.count(Buffer.concat(chunks).toString('utf8'), Date.now());
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  private count(body: string, receivedAt: number): void {
    let event: {
      id?: string;
      type?: string;
      created_at?: string;
      data?: { segments?: Array<{ absolute_end_time: string }> };
    };
    try {
      event = JSON.parse(body);
    } catch {
      return;
    }
    const { figures } = this;
    figures.received += 1;
    const type = event.type ?? 'unknown';
    figures.byType[type] = (figures.byType[type] ?? 0) + 1;
    if (event.id) {
      if (this.seen.has(event.id)) figures.duplicates += 1;
      else this.seen.add(event.id);
    }
    const created = Date.parse(event.created_at ?? '');
    if (!(created >= this.window.from && created <= this.window.to)) return;
    figures.lag.push(receivedAt - created);
    const published = Math.max(
      ...(event.data?.segments ?? []).map((segment) => Date.parse(segment.absolute_end_time)),
    );
    if (Number.isFinite(published)) figures.segmentLag.push(receivedAt - published);
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
