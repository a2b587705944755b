import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BadRequestError } from '../infra/errors.js';
import { checkWebhookUrl, guardedLookup, type WebhookAddressPolicy } from '../webhooks/address-policy.js';

/**
 * Fetches a bot action's media URL (a speak request's `audio_url`, a screen request's `image_url`)
 * under the same address rules as webhooks (scheme, port, public addresses only unless the operator
 * allows private ones, checked again at connection time), without following redirects and no
 * larger than `maxBytes`. Failures are the caller's: 400 naming the field.
 */
export async function fetchRemoteMedia(
  field: string,
  raw: string,
  policy: WebhookAddressPolicy,
  { maxBytes, timeoutMs, accept }: { maxBytes: number; timeoutMs: number; accept: string },
): Promise<Uint8Array> {
  const checked = await checkWebhookUrl(raw, policy);
  if (!checked.ok) throw new BadRequestError(`${field} ${checked.reason}`);
  const url = checked.url;
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Uint8Array>((resolve, reject) => {
    const fail = (message: string) => reject(new BadRequestError(`${field} ${message}`));
    const req = request(
      url,
      { method: 'GET', lookup: guardedLookup(policy), timeout: timeoutMs, headers: { accept } },
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
        response.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
        response.on('error', (error) => fail(`could not be read: ${error.message}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (error) => fail(`could not be fetched: ${error.message}`));
    req.end();
  });
}
