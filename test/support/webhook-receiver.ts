import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhookSignature, WebhookHeaders } from '../../shared/webhooks/signature.js';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  json: any;
  /** The status this receiver answered with. */
  answered: number;
}

/**
 * A webhook endpoint for tests on 127.0.0.1: records every request it gets and answers with what
 * `respond` says (200 unless told otherwise).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  respond: (request: { index: number; json: unknown }) => number = () => 200;
  private server: Server | undefined;
  url = '';

  async start(path = '/hooks'): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        const answered = this.respond({ index: this.received.length, json });
        this.received.push({ headers: request.headers, body, json, answered });
        response.writeHead(answered, { 'Content-Type': 'text/plain' });
        response.end(answered < 300 ? 'ok' : 'receiver says no');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  /** The requests this receiver accepted (2xx). */
  accepted(): ReceivedWebhook[] {
    return this.received.filter((request) => request.answered >= 200 && request.answered < 300);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A request header by its name in any case (Node lower-cases them). */
export function headerOf(request: ReceivedWebhook, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** What a receiver checks: the signature over the timestamp and the raw body, with this secret. */
export function hasValidSignature(request: ReceivedWebhook, secret: string): boolean {
  return verifyWebhookSignature({
    secret,
    body: request.body,
    timestamp: headerOf(request, WebhookHeaders.timestamp),
    signature: headerOf(request, WebhookHeaders.signature),
  });
}
