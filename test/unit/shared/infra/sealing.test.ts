import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BotAccountSessions } from '../../../../shared/accounts/bot-account-sessions.js';
import { parseConfig } from '../../../../shared/infra/config.js';
import {
  open,
  SealingError,
  seal,
  sealedKeyId,
  sealingKey,
  sealingKeyFrom,
  sealingKeyId,
  UnknownSealingKeyError,
} from '../../../../shared/infra/sealing.js';

const secret = randomBytes(32);
const key = sealingKey(secret);
const plaintext = Buffer.from('{"cookies":[{"name":"SID","value":"secret"}]}');

describe('sealing (AES-256-GCM)', () => {
  it('opens what it sealed, and never shows the plaintext in the sealed value', () => {
    const sealed = seal(key, plaintext, 'ctx');
    expect(sealed.includes(Buffer.from('secret'))).toBe(false);
    expect(open([key], sealed, 'ctx')).toEqual(plaintext);
  });

  it('seals the same value differently each time (a fresh nonce)', () => {
    expect(seal(key, plaintext, 'ctx').equals(seal(key, plaintext, 'ctx'))).toBe(false);
  });

  it.each([
    ['a ciphertext byte', -1],
    ['the tag', 14],
    ['the nonce', 10],
    ['the version', 0],
    ['the key id', 3],
  ])('refuses a value with %s changed', (_what, index) => {
    const sealed = seal(key, plaintext, 'ctx');
    const at = index < 0 ? sealed.length + index : index;
    sealed[at] = sealed[at]! ^ 0x01;
    expect(() => open([key], sealed, 'ctx')).toThrow(SealingError);
  });

  it('refuses another key and another context', () => {
    const sealed = seal(key, plaintext, 'ctx');
    expect(() => open([sealingKey(randomBytes(32))], sealed, 'ctx')).toThrow(UnknownSealingKeyError);
    expect(() => open([key], sealed, 'other')).toThrow(SealingError);
    expect(() => open([key], Buffer.from([1, 2, 3]), 'ctx')).toThrow(/not a sealed value/);
  });

  it('takes the key as base64 of exactly 32 bytes', () => {
    expect(sealingKeyFrom(secret.toString('base64'))).toEqual(secret);
    expect(() => sealingKeyFrom(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => sealingKeyFrom('not base64!')).toThrow(/base64/);
  });

  it('BOT_ACCOUNT_KEY is optional, and refused at startup when malformed', () => {
    expect(parseConfig({}).BOT_ACCOUNT_KEY).toBeUndefined();
    expect(() => parseConfig({ BOT_ACCOUNT_KEY: 'c2hvcnQ=' })).toThrow(/BOT_ACCOUNT_KEY/);
    expect(parseConfig({ BOT_ACCOUNT_KEY: secret.toString('base64') }).BOT_ACCOUNT_KEY).toBe(
      secret.toString('base64'),
    );
  });

  it('names the key in the sealed value: version 2, then the first 8 bytes of a hash of the key', () => {
    const sealed = seal(key, plaintext, 'ctx');
    expect(sealed[0]).toBe(2);
    expect(key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(sealedKeyId(sealed)).toBe(key.id);
    expect(sealed.subarray(1, 9).toString('hex')).toBe(sealingKeyId(secret));
    expect(sealingKeyId(randomBytes(32))).not.toBe(key.id);
    // The id tells nothing of the key: the key's bytes appear nowhere in the value.
    expect(sealed.includes(secret.subarray(0, 8))).toBe(false);
  });

  it('opens with whichever of several keys sealed it, and names a key id none of them has', () => {
    const previous = sealingKey(randomBytes(32));
    const other = sealingKey(randomBytes(32));
    expect(open([key, previous], seal(previous, plaintext, 'ctx'), 'ctx')).toEqual(plaintext);
    const foreign = seal(other, plaintext, 'ctx');
    expect(() => open([key, previous], foreign, 'ctx')).toThrow(
      `the sealed value is sealed with key id ${other.id}, which is none of this process's keys (${key.id}, ${previous.id})`,
    );
    try {
      open([key], foreign, 'ctx');
    } catch (error) {
      expect(error).toBeInstanceOf(UnknownSealingKeyError);
      expect((error as UnknownSealingKeyError).keyId).toBe(other.id);
    }
  });

  it('still opens values sealed before key ids (version 1), with any of the keys', () => {
    const old = sealedWithoutKeyId(secret, plaintext, 'ctx');
    expect(sealedKeyId(old)).toBeNull();
    expect(open([key], old, 'ctx')).toEqual(plaintext);
    expect(open([sealingKey(randomBytes(32)), key], old, 'ctx')).toEqual(plaintext);
    expect(() => open([sealingKey(randomBytes(32))], old, 'ctx')).toThrow(
      /does not open with any of the keys/,
    );
    expect(() => open([key], old, 'other')).toThrow(SealingError);
  });

  it('BOT_ACCOUNT_PREVIOUS_KEYS: a comma-separated list of keys, each checked, and only beside BOT_ACCOUNT_KEY', () => {
    const [a, b] = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')];
    expect(parseConfig({}).BOT_ACCOUNT_PREVIOUS_KEYS).toEqual([]);
    expect(
      parseConfig({ BOT_ACCOUNT_KEY: secret.toString('base64'), BOT_ACCOUNT_PREVIOUS_KEYS: `${a}, ${b}` })
        .BOT_ACCOUNT_PREVIOUS_KEYS,
    ).toEqual([a, b]);
    expect(() =>
      parseConfig({ BOT_ACCOUNT_KEY: secret.toString('base64'), BOT_ACCOUNT_PREVIOUS_KEYS: `${a},c2hvcnQ=` }),
    ).toThrow(/BOT_ACCOUNT_PREVIOUS_KEYS.*key 2: must be 32 bytes/s);
    expect(() => parseConfig({ BOT_ACCOUNT_PREVIOUS_KEYS: a })).toThrow(/needs BOT_ACCOUNT_KEY/);
  });
});

/** A value as sealed before key ids: version 1 ‖ nonce ‖ tag ‖ ciphertext, the context as additional data. */
function sealedWithoutKeyId(secretKey: Buffer, value: Buffer, context: string): Buffer {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secretKey, nonce, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(value), cipher.final()]);
  return Buffer.concat([Buffer.from([1]), nonce, cipher.getAuthTag(), ciphertext]);
}

describe('BotAccountSessions', () => {
  const state = {
    cookies: [
      {
        name: 'SID',
        value: 'v',
        domain: 'x.test',
        path: '/',
        expires: -1,
        httpOnly: false,
        secure: false,
        sameSite: 'Lax' as const,
      },
    ],
    origins: [],
  };

  it('round-trips a storage state, and another key does not open it', () => {
    const sessions = new BotAccountSessions(secret.toString('base64'));
    const sealed = sessions.seal(state);
    expect(sessions.open(sealed)).toEqual(state);
    expect(() => new BotAccountSessions(randomBytes(32).toString('base64')).open(sealed)).toThrow(
      SealingError,
    );
  });

  it("rotates: seals with the current key, opens the previous keys' sessions and re-seals them", () => {
    const oldKey = randomBytes(32).toString('base64');
    const before = new BotAccountSessions(oldKey);
    const underOld = before.seal(state);
    const rotated = new BotAccountSessions(secret.toString('base64'), [oldKey]);
    expect(rotated.keyIds).toEqual({
      current: key.id,
      previous: [sealingKeyId(Buffer.from(oldKey, 'base64'))],
    });
    expect(rotated.open(underOld)).toEqual(state);
    expect(sealedKeyId(rotated.seal(state))).toBe(key.id);
    expect(rotated.standing(underOld)).toBe('reseal');
    const resealed = rotated.reseal(underOld);
    expect(sealedKeyId(resealed)).toBe(key.id);
    expect(rotated.standing(resealed)).toBe('current');
    expect(new BotAccountSessions(secret.toString('base64')).open(resealed)).toEqual(state);
    // A session from before key ids is re-sealed too, and one under a key nobody here has is named.
    const legacy = sealedWithoutKeyId(
      secret,
      Buffer.from(JSON.stringify(state)),
      'meetbot bot-account storage state v1',
    );
    expect(rotated.open(legacy)).toEqual(state);
    expect(rotated.standing(legacy)).toBe('reseal');
    const stranger = new BotAccountSessions(randomBytes(32).toString('base64'));
    expect(rotated.standing(stranger.seal(state))).toEqual({ unknown: stranger.keyIds.current });
    expect(rotated.standing(sealedWithoutKeyId(randomBytes(32), Buffer.from('{}'), 'x'))).toEqual({
      unknown: null,
    });
  });

  it('without a key: 503 saying BOT_ACCOUNT_KEY is not set', () => {
    const sessions = new BotAccountSessions(undefined);
    expect(sessions.configured).toBe(false);
    expect(() => sessions.seal(state)).toThrow(/BOT_ACCOUNT_KEY/);
    expect(() => sessions.assertConfigured()).toThrow(expect.objectContaining({ status: 503 }));
  });
});
