import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import {
  guardedLookup,
  isNonPublicAddress,
  OutboundAddressError,
  type OutboundAddressPolicy,
  refusedAddressMessage,
  schemeOrPortProblem,
} from '../infra/outbound-address-policy.js';
import { signWebhook, WebhookHeaders } from './signature.js';

export interface WebhookRequest {
  url: string;
  id: string;
  type: string;
  body: string;
  secret: string;
}

export type SendResult =
  | { ok: true; statusCode: number }
  | {
      ok: false;
      statusCode: number | null;
      error: string;
      /** Retrying can't help (the address is refused by policy). */
      permanent: boolean;
    };

const USER_AGENT = 'meetbot-webhooks/1';

/**
 * One POST of a signed delivery. A 2xx answer is success; anything else (redirects are not followed),
 * a timeout or a connection error is a failure with a short description for the delivery log.
 */
export function sendWebhook(
  webhook: WebhookRequest,
  options: { policy: OutboundAddressPolicy; timeoutMs: number },
): Promise<SendResult> {
  const url = new URL(webhook.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.policy.allowPrivateAddresses && isIP(host) && isNonPublicAddress(host)) {
    return Promise.resolve({
      ok: false,
      statusCode: null,
      error: refusedAddressMessage(host),
      permanent: true,
    });
  }
  const schemeOrPort = schemeOrPortProblem(url, options.policy);
  if (schemeOrPort) {
    return Promise.resolve({
      ok: false,
      statusCode: null,
      error: `the endpoint ${schemeOrPort}`,
      permanent: true,
    });
  }
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(webhook.body),
    'User-Agent': USER_AGENT,
    [WebhookHeaders.id]: webhook.id,
    [WebhookHeaders.type]: webhook.type,
    [WebhookHeaders.timestamp]: String(timestamp),
    [WebhookHeaders.signature]: signWebhook(webhook.secret, timestamp, webhook.body),
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const request = send(
      url,
      { method: 'POST', headers, lookup: guardedLookup(options.policy), agent: false },
      (response) => {
        const statusCode = response.statusCode ?? 0;
        // The receiver's body is read and dropped, never reported: the result reaches the user (the
        // test answer, the delivery log), and where an operator allows private addresses a URL the
        // user chose could name an internal service whose answer they must not get to read.
        response.resume();
        response.on('error', () => undefined);
        response.on('end', () => {
          if (statusCode >= 200 && statusCode < 300) {
            finish({ ok: true, statusCode });
            return;
          }
          const redirect = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : '';
          finish({ ok: false, statusCode, error: `HTTP ${statusCode}${redirect}`, permanent: false });
        });
      },
    );
    request.setTimeout(options.timeoutMs, () => {
      request.destroy(new Error(`no answer within ${options.timeoutMs} ms`));
    });
    request.on('error', (error: Error) => {
      finish({
        ok: false,
        statusCode: null,
        error: error.message || error.name,
        permanent: error instanceof OutboundAddressError,
      });
    });
    request.end(webhook.body);
  });
}
