import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BadRequestError } from '../infra/errors.js';
import {
  checkOutboundUrl,
  guardedLookup,
  type OutboundAddressPolicy,
} from '../infra/outbound-address-policy.js';

/** How long a media fetch may take. */
export interface MediaFetchTimes {
  /** The longest silence: before the answer and between two of its bytes (WEBHOOK_TIMEOUT_MS). */
  idleTimeoutMs: number;
  /** The whole fetch, from the connection to the last byte (MEDIA_URL_FETCH_DEADLINE_MS). */
  deadlineMs: number;
}

/**
 * Fetches a bot action's media URL (a speak request's `audio_url`, a screen request's `image_url`)
 * under the same address rules as webhooks (scheme, port, public addresses only unless the operator
 * allows private ones, checked again at connection time), without following redirects, no larger
 * than `maxBytes`, with no silence longer than the idle timeout and the whole fetch within one
 * deadline (a server that trickles a byte now and then can't hold the request open). Failures are
 * the caller's: 400 naming the field.
 */
export async function fetchRemoteMedia(
  field: string,
  raw: string,
  policy: OutboundAddressPolicy,
  { maxBytes, times, accept }: { maxBytes: number; times: MediaFetchTimes; accept: string },
): Promise<Uint8Array> {
  const checked = await checkOutboundUrl(raw, policy);
  if (!checked.ok) throw new BadRequestError(`${field} ${checked.reason}`);
  const url = checked.url;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Uint8Array>((resolve, reject) => {
    let deadline: NodeJS.Timeout | undefined;
    const fail = (message: string) => {
      clearTimeout(deadline);
      reject(new BadRequestError(`${field} ${message}`));
    };
    const req = request(
      url,
      { method: 'GET', lookup: guardedLookup(policy), timeout: times.idleTimeoutMs, headers: { accept } },
      (response) => {
        if ((response.statusCode ?? 0) !== 200) {
          response.resume();
          fail(`answered HTTP ${response.statusCode} (redirects are not followed)`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            req.destroy();
            fail(`is larger than ${maxBytes} bytes`);
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(deadline);
          resolve(new Uint8Array(Buffer.concat(chunks)));
        });
        response.on('error', (error) => fail(`could not be read: ${error.message}`));
      },
    );
    deadline = setTimeout(() => {
      fail(
        `could not be fetched: the whole download must finish within ${formatSeconds(times.deadlineMs)}; serve the file faster or send it inline`,
      );
      req.destroy();
    }, times.deadlineMs);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${times.idleTimeoutMs} ms`)));
    req.on('error', (error) => fail(`could not be fetched: ${error.message}`));
    req.end();
  });
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
