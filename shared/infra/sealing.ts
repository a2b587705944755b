import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Secrets kept at rest (bot accounts' browser sessions) sealed with AES-256-GCM: a fresh 12-byte
 * nonce per seal, the 16-byte tag checked on open, so a changed byte or another key fails instead of
 * yielding garbage. `context` (e.g. the row's purpose) is bound as additional data: a sealed value
 * copied into another purpose does not open there.
 *
 * Layout: version byte 2 ‖ key id (8) ‖ nonce (12) ‖ tag (16) ‖ ciphertext; the version byte and the
 * key id are bound as additional data too. The key id names the key a value was sealed with (the
 * first 8 bytes of a SHA-256 of the key, so it tells nothing about the key), which lets a reader
 * with several keys (a rotation: the current one and previous ones) pick the right one, and say
 * which key is missing when it has none of them. Values sealed before key ids (version 1: version ‖
 * nonce ‖ tag ‖ ciphertext) still open: each key is tried in turn.
 */
const VERSION_WITHOUT_KEY_ID = 1;
const VERSION = 2;
const KEY_ID_BYTES = 8;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const SEALING_KEY_BYTES = 32;

export class SealingError extends Error {}

/** A value sealed with a key id none of the reader's keys has. */
export class UnknownSealingKeyError extends SealingError {
  constructor(
    readonly keyId: string,
    knownKeyIds: readonly string[],
  ) {
    super(
      `the sealed value is sealed with key id ${keyId}, which is none of this process's keys (${knownKeyIds.join(', ') || 'none'})`,
    );
  }
}

/** A sealing key and its id. */
export interface SealingKey {
  readonly id: string;
  readonly secret: Buffer;
}

/** The key from its setting: base64 of exactly 32 bytes; throws a message naming what is wrong. */
export function sealingKeyFrom(base64: string): Buffer {
  const trimmed = base64.trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) throw new SealingError('must be base64');
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== SEALING_KEY_BYTES)
    throw new SealingError(`must be ${SEALING_KEY_BYTES} bytes in base64 (it is ${key.length})`);
  return key;
}

/** A key's id, in hex: the first 8 bytes of SHA-256 over a label and the key. */
export function sealingKeyId(secret: Buffer): string {
  return keyIdBytes(secret).toString('hex');
}

function keyIdBytes(secret: Buffer): Buffer {
  return createHash('sha256')
    .update('meetbot sealing key id\0')
    .update(secret)
    .digest()
    .subarray(0, KEY_ID_BYTES);
}

/** The key with its id, from its 32 bytes. */
export function sealingKey(secret: Buffer): SealingKey {
  return { id: sealingKeyId(secret), secret };
}

export function seal(key: SealingKey, plaintext: Buffer, context: string): Buffer {
  const header = Buffer.concat([Buffer.from([VERSION]), keyIdBytes(key.secret)]);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.secret, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.concat([header, Buffer.from(context, 'utf8')]));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, nonce, cipher.getAuthTag(), ciphertext]);
}

/**
 * The id of the key a value was sealed with, or null for a value sealed before key ids (its key is
 * known only by trying). Throws SealingError when it is not a sealed value.
 */
export function sealedKeyId(sealed: Buffer): string | null {
  if (sealed[0] === VERSION && sealed.length >= 1 + KEY_ID_BYTES + NONCE_BYTES + TAG_BYTES) {
    return sealed.subarray(1, 1 + KEY_ID_BYTES).toString('hex');
  }
  if (sealed[0] === VERSION_WITHOUT_KEY_ID && sealed.length >= 1 + NONCE_BYTES + TAG_BYTES) return null;
  throw new SealingError('not a sealed value');
}

/**
 * The plaintext, opened with whichever of `keys` sealed it. Throws UnknownSealingKeyError when the
 * value names a key id none of them has, SealingError when it was changed, sealed under another
 * context, or (a value without key id) opens with none of them.
 */
export function open(keys: readonly SealingKey[], sealed: Buffer, context: string): Buffer {
  const keyId = sealedKeyId(sealed);
  if (keyId === null) {
    for (const key of keys) {
      const plaintext = decrypt(key.secret, sealed.subarray(1), Buffer.from(context, 'utf8'));
      if (plaintext) return plaintext;
    }
    throw new SealingError(
      'the sealed value does not open with any of the keys (changed, or another key; it was sealed before key ids)',
    );
  }
  const key = keys.find((candidate) => candidate.id === keyId);
  if (!key)
    throw new UnknownSealingKeyError(
      keyId,
      keys.map((candidate) => candidate.id),
    );
  const header = sealed.subarray(0, 1 + KEY_ID_BYTES);
  const plaintext = decrypt(
    key.secret,
    sealed.subarray(1 + KEY_ID_BYTES),
    Buffer.concat([header, Buffer.from(context, 'utf8')]),
  );
  if (!plaintext) throw new SealingError(`the sealed value does not open with key ${keyId} (changed)`);
  return plaintext;
}

/** nonce ‖ tag ‖ ciphertext opened with `secret`, or undefined when the tag does not check. */
function decrypt(secret: Buffer, body: Buffer, aad: Buffer): Buffer | undefined {
  const nonce = body.subarray(0, NONCE_BYTES);
  const tag = body.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', secret, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(body.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
