import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The headers every webhook delivery carries. */
export const WebhookHeaders = {
  id: 'X-Webhook-Id',
  type: 'X-Webhook-Type',
  timestamp: 'X-Webhook-Timestamp',
  signature: 'X-Webhook-Signature',
} as const;

const SIGNATURE_VERSION = 'v1';

/** A new signing secret: `whsec_` and 32 random bytes, base64url. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * `v1=` + hex HMAC-SHA256 of `${timestamp}.${body}` keyed with the secret. The timestamp (Unix
 * seconds, sent in its own header) is inside the signature so a captured delivery can't be replayed
 * later with a fresh timestamp.
 */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return `${SIGNATURE_VERSION}=${digest}`;
}

/**
 * What a receiver does: recompute the signature, compare in constant time, and refuse timestamps
 * too far from now. Accepts a header listing several signatures (`v1=a,v1=b`).
 */
export function verifyWebhookSignature(input: {
  secret: string;
  body: string;
  timestamp: string | null | undefined;
  signature: string | null | undefined;
  toleranceSeconds?: number;
  nowSeconds?: number;
}): boolean {
  const { secret, body, timestamp, signature } = input;
  if (!timestamp || !signature || !/^\d{1,15}$/.test(timestamp)) return false;
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (input.toleranceSeconds ?? 300)) return false;
  const expected = Buffer.from(signWebhook(secret, Number(timestamp), body));
  return signature
    .split(',')
    .map((candidate) => Buffer.from(candidate.trim()))
    .some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected));
}
