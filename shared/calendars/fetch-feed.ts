import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import {
  checkOutboundUrl,
  guardedLookup,
  type OutboundAddressPolicy,
} from '../infra/outbound-address-policy.js';

export interface FeedFetchLimits {
  /** One deadline for the whole fetch: every redirect, the headers and the last byte (CALENDAR_FEED_FETCH_TIMEOUT_MS). */
  timeoutMs: number;
  /** The largest body read, however it is sent (Content-Length or chunked) (CALENDAR_FEED_MAX_BYTES). */
  maxBytes: number;
  /** Redirects followed, each to an address checked again (CALENDAR_FEED_MAX_REDIRECTS). */
  maxRedirects: number;
}

/** Why a feed could not be fetched, in words the feed's owner can act on. */
export class FeedFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedFetchError';
  }
}

const USER_AGENT = 'meetbot-calendar/1';

/**
 * GETs a feed's iCalendar text under the webhook address rules (scheme, port, public addresses only
 * unless the operator allows private ones), checked for the URL and again for every redirect's
 * target, and at connection time for the address the name resolves to then (DNS rebinding).
 * Redirects are followed by hand, so none goes where the rules refuse.
 */
export async function fetchFeed(
  url: string,
  policy: OutboundAddressPolicy,
  limits: FeedFetchLimits,
): Promise<string> {
  const deadline = Date.now() + limits.timeoutMs;
  let current = url;
  for (let hop = 0; ; hop += 1) {
    const checked = await checkOutboundUrl(current, policy);
    if (!checked.ok) {
      throw new FeedFetchError(
        hop === 0 ? `the URL ${checked.reason}` : `a redirect to ${current}: ${checked.reason}`,
      );
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw timedOut(limits.timeoutMs);
    const answer = await getOnce(checked.url, policy, limits.maxBytes, remaining, limits.timeoutMs);
    if ('body' in answer) return answer.body;
    if (hop >= limits.maxRedirects) {
      throw new FeedFetchError(`more than ${limits.maxRedirects} redirects`);
    }
    current = new URL(answer.location, checked.url).toString();
  }
}

function timedOut(timeoutMs: number): FeedFetchError {
  return new FeedFetchError(`no complete answer within ${timeoutMs} ms`);
}

type OneAnswer = { body: string } | { location: string };

function getOnce(
  url: URL,
  policy: OutboundAddressPolicy,
  maxBytes: number,
  remainingMs: number,
  timeoutMs: number,
): Promise<OneAnswer> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<OneAnswer>((resolve, reject) => {
    let settled = false;
    let request: ClientRequest | undefined;
    const finish = (outcome: { ok: OneAnswer } | { error: FeedFetchError }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if ('ok' in outcome) resolve(outcome.ok);
      else {
        request?.destroy();
        reject(outcome.error);
      }
    };
    const timer = setTimeout(() => finish({ error: timedOut(timeoutMs) }), remainingMs);
    request = send(
      url,
      {
        method: 'GET',
        lookup: guardedLookup(policy),
        agent: false,
        headers: { accept: 'text/calendar, text/plain;q=0.9, */*;q=0.1', 'user-agent': USER_AGENT },
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && status !== 304) {
          response.resume();
          const location = response.headers.location;
          if (!location) finish({ error: new FeedFetchError(`HTTP ${status} without a Location`) });
          else finish({ ok: { location } });
          return;
        }
        if (status !== 200) {
          response.resume();
          finish({ error: new FeedFetchError(`the feed answered HTTP ${status}`) });
          return;
        }
        const declared = Number(response.headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          finish({ error: new FeedFetchError(`the feed is larger than ${maxBytes} bytes`) });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            finish({ error: new FeedFetchError(`the feed is larger than ${maxBytes} bytes`) });
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => finish({ ok: { body: new TextDecoder().decode(Buffer.concat(chunks)) } }));
        response.on('error', (error) =>
          finish({ error: new FeedFetchError(`the answer could not be read: ${error.message}`) }),
        );
        response.on('aborted', () => finish({ error: new FeedFetchError('the answer was cut short') }));
      },
    );
    request.on('error', (error) =>
      finish({ error: new FeedFetchError(`could not be fetched: ${error.message}`) }),
    );
    request.end();
  });
}
