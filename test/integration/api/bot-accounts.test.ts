import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  googleMeetBot,
  startTestApi,
  type TestApi,
  type TestResponse,
} from '../../support/api.js';

// The admin API of bot accounts (signed-in bots, issue 34) against the real API and Postgres. Every
// answer and every log line the API wrote is searched for the session's secret cookie value.

const SECRET = `secret-cookie-${randomBytes(8).toString('hex')}`;
const LOCAL_STORAGE_SECRET = `secret-local-${randomBytes(8).toString('hex')}`;
const storageState = {
  cookies: [{ name: 'SID', value: SECRET, domain: '.google.com', path: '/', httpOnly: true, secure: true }],
  origins: [
    { origin: 'https://meet.google.com', localStorage: [{ name: 'token', value: LOCAL_STORAGE_SECRET }] },
  ],
};

const logLines: string[] = [];
const captured = new Writable({
  write(chunk: Buffer, _encoding, done) {
    logLines.push(chunk.toString('utf8'));
    done();
  },
});
const answers: TestResponse[] = [];

let api: TestApi;
let keyless: TestApi;
const admin = { adminKey: ADMIN_KEY };

async function call(
  target: TestApi,
  method: string,
  path: string,
  options: Parameters<TestApi['request']>[2] = {},
) {
  const response = await target.request(method, path, options);
  answers.push(response);
  return response;
}

beforeAll(async () => {
  api = await startTestApi({
    env: { BOT_ACCOUNT_KEY: randomBytes(32).toString('base64') },
    logger: pino({ level: 'trace' }, captured),
  });
  keyless = await startTestApi({ logger: pino({ level: 'trace' }, captured) });
});
afterAll(async () => {
  await keyless?.close();
  await api?.close();
});

describe('/admin/bot-accounts', () => {
  it('registers an account and shows everything but its session', async () => {
    const created = await call(api, 'POST', '/admin/bot-accounts', {
      ...admin,
      json: { platform: 'google_meet', display_name: 'Ada Bot', storage_state: storageState },
    });
    expect(created.status, created.text).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(
      [
        'bots_in_use',
        'created_at',
        'display_name',
        'id',
        'platform',
        'status',
        'status_changed_at',
        'status_reason',
        'updated_at',
      ].sort(),
    );
    expect(created.body).toMatchObject({
      platform: 'google_meet',
      display_name: 'Ada Bot',
      status: 'active',
      status_reason: null,
      bots_in_use: 0,
    });
    const id = created.body.id as number;
    const stored = await api.database.db('bot_accounts').where({ id }).first();
    expect(Buffer.from(stored.sealed_storage_state).includes(Buffer.from(SECRET))).toBe(false);

    expect((await call(api, 'GET', `/admin/bot-accounts/${id}`, admin)).body).toEqual(created.body);
    const list = await call(api, 'GET', '/admin/bot-accounts', admin);
    expect(list.body.map((account: { id: number }) => account.id)).toContain(id);

    const renamed = await call(api, 'PATCH', `/admin/bot-accounts/${id}`, {
      ...admin,
      json: { display_name: 'Ada B.', enabled: false },
    });
    expect(renamed.body).toMatchObject({
      display_name: 'Ada B.',
      status: 'disabled',
      status_reason: 'disabled by the operator',
    });
    const renewed = await call(api, 'PATCH', `/admin/bot-accounts/${id}`, {
      ...admin,
      json: { storage_state: storageState, enabled: true },
    });
    expect(renewed.body).toMatchObject({ status: 'active', status_reason: null });

    expect((await call(api, 'DELETE', `/admin/bot-accounts/${id}`, admin)).status).toBe(204);
    expect((await call(api, 'GET', `/admin/bot-accounts/${id}`, admin)).status).toBe(404);
    expect((await call(api, 'DELETE', `/admin/bot-accounts/${id}`, admin)).status).toBe(404);
  });

  it.each([
    ['no platform', { display_name: 'A', storage_state: storageState }, /platform/],
    [
      'an unknown platform',
      { platform: 'webex', display_name: 'A', storage_state: storageState },
      /platform/,
    ],
    ['an empty name', { platform: 'teams', display_name: ' ', storage_state: storageState }, /display_name/],
    ['no session', { platform: 'teams', display_name: 'A' }, /storage_state/],
    [
      'an empty session',
      { platform: 'teams', display_name: 'A', storage_state: { cookies: [], origins: [] } },
      /storage_state/,
    ],
    [
      'a cookie without a domain',
      { platform: 'teams', display_name: 'A', storage_state: { cookies: [{ name: 'a', value: SECRET }] } },
      /storage_state\.cookies\[0\]\.domain/,
    ],
    [
      'a bad sameSite',
      {
        platform: 'teams',
        display_name: 'A',
        storage_state: { cookies: [{ name: 'a', value: SECRET, domain: 'x.test', sameSite: 'lax' }] },
      },
      /sameSite/,
    ],
  ])('refuses %s with 400 naming the field', async (_what, json, field) => {
    const response = await call(api, 'POST', '/admin/bot-accounts', { ...admin, json });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(field);
  });

  it('caps the session at 256 KiB', async () => {
    const big = {
      cookies: [{ name: 'a', value: 'x'.repeat(16_000), domain: 'x.test' }],
      origins: [] as unknown[],
    };
    big.origins.push({ origin: 'https://x.test', localStorage: [{ name: 'k', value: 'y'.repeat(250_000) }] });
    const response = await call(api, 'POST', '/admin/bot-accounts', {
      ...admin,
      json: { platform: 'teams', display_name: 'Big', storage_state: big },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/at most 262144 bytes/);
    const huge = await call(api, 'POST', '/admin/bot-accounts', {
      ...admin,
      json: {
        platform: 'teams',
        display_name: 'Huge',
        storage_state: { cookies: [], origins: [], pad: 'z'.repeat(400_000) },
      },
    });
    expect(huge.status).toBe(413);
  });

  it('is admin-only: no key, a wrong key and every user key get 403', async () => {
    const user = await api.createUser();
    const routes: Array<[string, string]> = [
      ['POST', '/admin/bot-accounts'],
      ['GET', '/admin/bot-accounts'],
      ['GET', '/admin/bot-accounts/1'],
      ['PATCH', '/admin/bot-accounts/1'],
      ['DELETE', '/admin/bot-accounts/1'],
    ];
    for (const [method, path] of routes) {
      for (const options of [{}, { adminKey: 'wrong-key-wrong-key' }, { key: user.key }]) {
        const response = await call(api, method, path, {
          ...options,
          ...(method === 'POST' || method === 'PATCH'
            ? { json: { platform: 'teams', display_name: 'X', storage_state: storageState } }
            : {}),
        });
        expect(response.status, `${method} ${path}`).toBe(403);
      }
    }
    expect((await call(api, 'GET', '/admin/bot-accounts', admin)).status).toBe(200);
  });

  it('without BOT_ACCOUNT_KEY the service runs and the routes and authenticated bots answer 503 saying so', async () => {
    for (const [method, path] of [
      ['GET', '/admin/bot-accounts'],
      ['POST', '/admin/bot-accounts'],
    ] as const) {
      const response = await call(keyless, method, path, {
        ...admin,
        ...(method === 'POST' && {
          json: { platform: 'teams', display_name: 'X', storage_state: storageState },
        }),
      });
      expect(response.status).toBe(503);
      expect(response.body.error).toMatch(/BOT_ACCOUNT_KEY/);
    }
    const user = await keyless.createUser();
    const bot = await call(keyless, 'POST', '/bots', {
      key: user.key,
      json: googleMeetBot('kls-defg-hij', { authenticated: true }),
    });
    expect(bot.status).toBe(503);
    expect(bot.body.error).toMatch(/BOT_ACCOUNT_KEY/);
    const anonymous = await call(keyless, 'POST', '/bots', {
      key: user.key,
      json: googleMeetBot('kls-defg-hik'),
    });
    expect(anonymous.status).toBe(201);
  });

  it('POST /bots takes authenticated (a boolean) and stores it on the meeting', async () => {
    const user = await api.createUser();
    const bad = await call(api, 'POST', '/bots', {
      key: user.key,
      json: googleMeetBot('aut-defg-hij', { authenticated: 'yes' }),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/authenticated/);
    const created = await call(api, 'POST', '/bots', {
      key: user.key,
      json: googleMeetBot('aut-defg-hij', { authenticated: true }),
    });
    expect(created.status, created.text).toBe(201);
    const row = await api.database.db('meetings').where({ id: created.body.id }).first();
    expect(row).toMatchObject({ authenticated: true, bot_account_id: null });
  });

  it('refuses to delete an account a live meeting uses (409), and deletes it once the meeting ended', async () => {
    const created = await call(api, 'POST', '/admin/bot-accounts', {
      ...admin,
      json: { platform: 'teams', display_name: 'Busy Bot', storage_state: storageState },
    });
    const user = await api.createUser();
    const bot = await call(api, 'POST', '/bots', {
      key: user.key,
      json: { platform: 'teams', native_meeting_id: '998877665544', passcode: 'abc', authenticated: true },
    });
    expect(bot.status, bot.text).toBe(201);
    await api.database.db('meetings').where({ id: bot.body.id }).update({ bot_account_id: created.body.id });
    expect((await call(api, 'GET', `/admin/bot-accounts/${created.body.id}`, admin)).body.bots_in_use).toBe(
      1,
    );
    const refused = await call(api, 'DELETE', `/admin/bot-accounts/${created.body.id}`, admin);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/in use by 1 bot/);
    await api.database.db('meetings').where({ id: bot.body.id }).update({ status: 'completed' });
    expect((await call(api, 'GET', `/admin/bot-accounts/${created.body.id}`, admin)).body.bots_in_use).toBe(
      0,
    );
    expect((await call(api, 'DELETE', `/admin/bot-accounts/${created.body.id}`, admin)).status).toBe(204);
  });
});

describe('the session', () => {
  it('appears in no answer and no log line of this file', () => {
    expect(answers.length).toBeGreaterThan(20);
    expect(logLines.length).toBeGreaterThan(20);
    for (const secret of [SECRET, LOCAL_STORAGE_SECRET]) {
      expect(answers.filter((answer) => answer.text.includes(secret))).toEqual([]);
      expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});
