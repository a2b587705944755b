import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BotAccountSessions } from '../../../shared/accounts/bot-account-sessions.js';
import { parseConfig } from '../../../shared/infra/config.js';
import { sealedKeyId } from '../../../shared/infra/sealing.js';
import { findMeetingById } from '../../../shared/meetings/store.js';
import { botAccountForLaunch } from '../../../worker/accounts/bot-account-launch.js';
import { checkBotAccountKeysAtStart } from '../../../worker/accounts/bot-account-key-check.js';
import { ADMIN_KEY, googleMeetBot, startTestApi, type TestApi } from '../../support/api.js';

// BOT_ACCOUNT_KEY's key id, rotation and mismatches, against the real API and Postgres: sessions the
// API sealed with one key, a worker starting with another, a worker that never got the new key.

const OLD_KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('base64');
const STRANGER_KEY = randomBytes(32).toString('base64');
const admin = { adminKey: ADMIN_KEY };
const state = {
  cookies: [
    {
      name: 'SID',
      value: 'v',
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: 'Lax' as const,
    },
  ],
  origins: [],
};

let api: TestApi;

function capturingLog() {
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'trace' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    }),
  );
  return { log, lines };
}

function workerConfig(env: Record<string, string>) {
  return parseConfig({ DATABASE_URL: api.database.url, REDIS_URL: api.config.REDIS_URL, ...env });
}

async function sealedOf(id: number): Promise<Buffer> {
  const row = await api.database.db('bot_accounts').where({ id }).first('sealed_storage_state');
  return row.sealed_storage_state as Buffer;
}

beforeAll(async () => {
  api = await startTestApi({ env: { BOT_ACCOUNT_KEY: OLD_KEY } });
});
afterAll(() => api.close());

describe('BOT_ACCOUNT_KEY rotation and key ids', () => {
  it("a worker with the new key re-seals the previous key's sessions, names a key it lacks, and a worker without the new key fails the launch saying so", async () => {
    const accountIds: number[] = [];
    for (const name of ['Rotating One', 'Rotating Two']) {
      const response = await api.request('POST', '/admin/bot-accounts', {
        ...admin,
        json: { platform: 'google_meet', display_name: name, storage_state: state },
      });
      expect(response.status, response.text).toBe(201);
      accountIds.push(response.body.id as number);
    }
    const oldSessions = new BotAccountSessions(OLD_KEY);
    for (const id of accountIds) expect(sealedKeyId(await sealedOf(id))).toBe(oldSessions.keyIds.current);
    // A session sealed with a key no process here has (another deployment's API, a lost key).
    const stranger = new BotAccountSessions(STRANGER_KEY);
    const [strangerRow] = await api.database
      .db('bot_accounts')
      .insert({ platform: 'zoom', display_name: 'Stranger', sealed_storage_state: stranger.seal(state) })
      .returning('id');
    const strangerId = (strangerRow as { id: number }).id;

    const rotated = capturingLog();
    await checkBotAccountKeysAtStart({
      db: api.database.db,
      config: workerConfig({ BOT_ACCOUNT_KEY: NEW_KEY, BOT_ACCOUNT_PREVIOUS_KEYS: OLD_KEY }),
      log: rotated.log,
    });
    const newSessions = new BotAccountSessions(NEW_KEY);
    for (const id of accountIds) {
      const sealed = await sealedOf(id);
      expect(sealedKeyId(sealed)).toBe(newSessions.keyIds.current);
      expect(newSessions.open(sealed)).toEqual(state);
    }
    expect(sealedKeyId(await sealedOf(strangerId))).toBe(stranger.keyIds.current);
    const mismatch = rotated.lines.find((line) => line.level === 50);
    expect(mismatch).toMatchObject({ keyId: stranger.keyIds.current, botAccountIds: [strangerId] });
    expect(mismatch?.msg).toMatch(
      new RegExp(
        `^bot account key mismatch: 1 bot account session\\(s\\) are sealed with key id ${stranger.keyIds.current}, which this worker does not have`,
      ),
    );
    expect(
      rotated.lines.find(
        (line) => line.msg === 'bot account sessions re-sealed with the current BOT_ACCOUNT_KEY',
      ),
    ).toMatchObject({
      botAccountIds: accountIds,
    });
    // No key appears in any log line, only key ids.
    for (const key of [OLD_KEY, NEW_KEY, STRANGER_KEY])
      expect(JSON.stringify(rotated.lines)).not.toContain(key);

    // A second start has nothing left to re-seal.
    const again = capturingLog();
    await checkBotAccountKeysAtStart({
      db: api.database.db,
      config: workerConfig({ BOT_ACCOUNT_KEY: NEW_KEY, BOT_ACCOUNT_PREVIOUS_KEYS: OLD_KEY }),
      log: again.log,
    });
    expect(
      again.lines.some(
        (line) => line.msg === 'bot account sessions re-sealed with the current BOT_ACCOUNT_KEY',
      ),
    ).toBe(false);

    // A worker still on the old key alone takes a re-sealed account: the launch fails naming the key ids.
    const user = await api.createUser({ maxConcurrentBots: 5 });
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('key-idsx-abc', { authenticated: true }),
    });
    expect(created.status, created.text).toBe(201);
    const meeting = await findMeetingById(api.database.db, created.body.id as number);
    const stale = capturingLog();
    const outcome = await botAccountForLaunch(
      { db: api.database.db, config: workerConfig({ BOT_ACCOUNT_KEY: OLD_KEY }), log: stale.log },
      meeting!,
    );
    expect(outcome).toEqual({
      failed: {
        reason: 'launch_failed',
        detail: expect.stringMatching(
          new RegExp(
            `^bot account key mismatch: the session of bot account (${accountIds.join('|')}) is sealed with key id ${newSessions.keyIds.current}, which this worker does not have \\(this worker's BOT_ACCOUNT_KEY has key id ${oldSessions.keyIds.current}\\)`,
          ),
        ),
      },
    });
    expect(stale.lines.find((line) => line.level === 50)?.msg).toBe(
      'failed' in outcome ? outcome.failed.detail : undefined,
    );
  });
});
