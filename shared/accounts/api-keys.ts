import { createHash, randomBytes } from 'node:crypto';

const KEY_PREFIX = 'mb_';
const DISPLAY_PREFIX_LENGTH = 10;

export interface GeneratedApiKey {
  /** The secret itself: shown to its owner once, never stored. */
  token: string;
  /** The first characters, kept so a person can tell their keys apart. */
  prefix: string;
  /** SHA-256 of the token: the only form that is stored. */
  hash: string;
}

export function hashApiKey(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function generateApiKey(): GeneratedApiKey {
  const token = `${KEY_PREFIX}${randomBytes(30).toString('base64url')}`;
  return { token, prefix: token.slice(0, DISPLAY_PREFIX_LENGTH), hash: hashApiKey(token) };
}
