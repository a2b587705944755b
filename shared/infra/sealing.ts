import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets kept at rest (bot accounts' browser sessions) sealed with AES-256-GCM: a fresh 12-byte
 * nonce per seal, the 16-byte tag checked on open, so a changed byte or another key fails instead of
 * yielding garbage. `context` (e.g. the row's purpose) is bound as additional data: a sealed value
 * copied into another purpose does not open there.
 *
 * Layout: version byte 1 ‖ nonce (12) ‖ tag (16) ‖ ciphertext.
 */
const VERSION = 1;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const SEALING_KEY_BYTES = 32;

export class SealingError extends Error {}

/** The key from its setting: base64 of exactly 32 bytes; throws a message naming what is wrong. */
export function sealingKeyFrom(base64: string): Buffer {
  const trimmed = base64.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) throw new SealingError('must be base64');
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== SEALING_KEY_BYTES)
    throw new SealingError(`must be ${SEALING_KEY_BYTES} bytes in base64 (it is ${key.length})`);
  return key;
}

export function seal(key: Buffer, plaintext: Buffer, context: string): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, cipher.getAuthTag(), ciphertext]);
}

/** The plaintext; throws SealingError when the value was changed, sealed under another key or context. */
export function open(key: Buffer, sealed: Buffer, context: string): Buffer {
  if (sealed.length < 1 + NONCE_BYTES + TAG_BYTES || sealed[0] !== VERSION)
    throw new SealingError('not a sealed value');
  const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
  const tag = sealed.subarray(1 + NONCE_BYTES, 1 + NONCE_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(sealed.subarray(1 + NONCE_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealingError('the sealed value does not open with this key (changed, or another key)');
  }
}
