import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * A recording's media link: `<base>/recordings/{id}/media?token=<expires>.<signature>`, where
 * `expires` is a Unix time in seconds and the signature an HMAC-SHA256, keyed by the owner's media
 * link secret, of the recording, its owner and that time. Nothing is stored per link: a link is good
 * until it expires, its owner's secret is rotated, or its owner loses every key or is deleted.
 */

const TOKEN_PATTERN = /^([0-9]{1,12})\.([A-Za-z0-9_-]{43})$/;

export interface MediaLinkClaims {
  recordingId: number;
  userId: number;
  /** When the link stops working, in Unix seconds. */
  expiresAt: number;
}

function signature(secret: string, claims: MediaLinkClaims): Buffer {
  return createHmac('sha256', secret)
    .update(`meetbot-recording-media:v1:${claims.recordingId}:${claims.userId}:${claims.expiresAt}`)
    .digest();
}

export function signMediaToken(secret: string, claims: MediaLinkClaims): string {
  return `${claims.expiresAt}.${signature(secret, claims).toString('base64url')}`;
}

/** Whether `token` was signed with `secret` for this recording and owner, and has not expired. */
export function mediaTokenValid(
  secret: string,
  token: string,
  expected: { recordingId: number; userId: number; nowSeconds: number },
): boolean {
  const match = TOKEN_PATTERN.exec(token);
  if (!match) return false;
  const expiresAt = Number(match[1]);
  if (expiresAt <= expected.nowSeconds) return false;
  // Compared as text: decoding would ignore the last character's two spare bits, so four spellings
  // of one signature would pass and a link changed in its last character could still play.
  const presented = Buffer.from(match[2]!, 'latin1');
  const wanted = Buffer.from(
    signature(secret, { recordingId: expected.recordingId, userId: expected.userId, expiresAt }).toString(
      'base64url',
    ),
    'latin1',
  );
  return presented.length === wanted.length && timingSafeEqual(presented, wanted);
}

/** Signs the media links of one answer: one owner, one expiry. */
export interface MediaLinks {
  /** Where media URLs point: PUBLIC_BASE_URL (it may carry a path prefix) or the request's origin. */
  baseUrl: string;
  tokenFor(recordingId: number): string;
}

export function mediaLinksOf(
  baseUrl: string,
  owner: { userId: number; secret: string },
  expiresAt: number,
): MediaLinks {
  return {
    baseUrl,
    tokenFor: (recordingId) => signMediaToken(owner.secret, { recordingId, userId: owner.userId, expiresAt }),
  };
}
