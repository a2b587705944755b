import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signedInOutcome, takeStorageState } from '../../../bot/signed-in.js';

describe('signedInOutcome', () => {
  it('turns a sign-in screen into sign_in_expired for a signed-in bot', () => {
    expect(
      signedInOutcome({ status: 'failed', reason: 'sign_in_required', detail: '"Sign in" screen' }),
    ).toEqual({
      status: 'failed',
      reason: 'sign_in_expired',
      detail:
        'signed in as the bot account, the meeting still asked for sign-in (the session no longer works, or the meeting wants another account): "Sign in" screen',
    });
  });

  it('leaves every other outcome as it is', () => {
    const outcomes = [
      { status: 'failed', reason: 'admission_denied' },
      { status: 'failed', reason: 'blocked', detail: 'x' },
      { status: 'completed', reason: 'meeting_ended' },
    ] as const;
    for (const outcome of outcomes) expect(signedInOutcome(outcome)).toBe(outcome);
  });
});

describe('takeStorageState', () => {
  it('reads the session and deletes its file', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'session-')), 'state.json');
    await writeFile(path, JSON.stringify({ cookies: [{ name: 'a', value: 'b', domain: 'x.test' }] }), {
      mode: 0o600,
    });
    const state = await takeStorageState(path);
    expect(state.cookies[0]).toMatchObject({
      name: 'a',
      value: 'b',
      domain: 'x.test',
      path: '/',
      sameSite: 'Lax',
    });
    await expect(stat(path)).rejects.toThrow(/ENOENT/);
  });

  it('says what is wrong without repeating the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'session-'));
    await expect(takeStorageState(join(dir, 'missing.json'))).rejects.toThrow(
      /missing or unreadable: ENOENT/,
    );
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"cookies": "secret-value"}');
    const failure = takeStorageState(broken);
    await expect(failure).rejects.toThrow(/not a storage state/);
    await expect(failure).rejects.not.toThrow(/secret-value/);
    await expect(readFile(broken)).rejects.toThrow(/ENOENT/);
  });
});
