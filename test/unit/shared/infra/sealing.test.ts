import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BotAccountSessions } from '../../../../shared/accounts/bot-account-sessions.js';
import { parseConfig } from '../../../../shared/infra/config.js';
import { open, SealingError, seal, sealingKeyFrom } from '../../../../shared/infra/sealing.js';

const key = randomBytes(32);
const plaintext = Buffer.from('{"cookies":[{"name":"SID","value":"secret"}]}');

describe('sealing (AES-256-GCM)', () => {
  it('opens what it sealed, and never shows the plaintext in the sealed value', () => {
    const sealed = seal(key, plaintext, 'ctx');
    expect(sealed.includes(Buffer.from('secret'))).toBe(false);
    expect(open(key, sealed, 'ctx')).toEqual(plaintext);
  });

  it('seals the same value differently each time (a fresh nonce)', () => {
    expect(seal(key, plaintext, 'ctx').equals(seal(key, plaintext, 'ctx'))).toBe(false);
  });

  it.each([
    ['a ciphertext byte', -1],
    ['the tag', 14],
    ['the nonce', 2],
  ])('refuses a value with %s changed', (_what, index) => {
    const sealed = seal(key, plaintext, 'ctx');
    const at = index < 0 ? sealed.length + index : index;
    sealed[at] = sealed[at]! ^ 0x01;
    expect(() => open(key, sealed, 'ctx')).toThrow(SealingError);
  });

  it('refuses another key and another context', () => {
    const sealed = seal(key, plaintext, 'ctx');
    expect(() => open(randomBytes(32), sealed, 'ctx')).toThrow(/does not open/);
    expect(() => open(key, sealed, 'other')).toThrow(SealingError);
    expect(() => open(key, Buffer.from([1, 2, 3]), 'ctx')).toThrow(/not a sealed value/);
  });

  it('takes the key as base64 of exactly 32 bytes', () => {
    expect(sealingKeyFrom(key.toString('base64'))).toEqual(key);
    expect(() => sealingKeyFrom(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
    expect(() => sealingKeyFrom('not base64!')).toThrow(/base64/);
  });

  it('BOT_ACCOUNT_KEY is optional, and refused at startup when malformed', () => {
    expect(parseConfig({}).BOT_ACCOUNT_KEY).toBeUndefined();
    expect(() => parseConfig({ BOT_ACCOUNT_KEY: 'c2hvcnQ=' })).toThrow(/BOT_ACCOUNT_KEY/);
    expect(parseConfig({ BOT_ACCOUNT_KEY: key.toString('base64') }).BOT_ACCOUNT_KEY).toBe(
      key.toString('base64'),
    );
  });
});

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
    const sessions = new BotAccountSessions(key.toString('base64'));
    const sealed = sessions.seal(state);
    expect(sessions.open(sealed)).toEqual(state);
    expect(() => new BotAccountSessions(randomBytes(32).toString('base64')).open(sealed)).toThrow(
      SealingError,
    );
  });

  it('without a key: 503 saying BOT_ACCOUNT_KEY is not set', () => {
    const sessions = new BotAccountSessions(undefined);
    expect(sessions.configured).toBe(false);
    expect(() => sessions.seal(state)).toThrow(/BOT_ACCOUNT_KEY/);
    expect(() => sessions.assertConfigured()).toThrow(expect.objectContaining({ status: 503 }));
  });
});
