import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  googleMeetBot,
  startTestApi,
  type TestApi,
  type TestUser,
  teamsBot,
} from '../../support/api.js';
import { parseRawAnswer, rawHttp } from '../../support/raw-http.js';

// Regression tests for what an attacker's generated requests found: each was a 500, a bypass or
// an answer outside the `{ "error": "..." }` form.
let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser();
});
afterAll(() => api?.close());

async function expectError(
  response: { status: number; body: unknown },
  status: number,
  message: string | RegExp,
): Promise<void> {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body as object)).toEqual(['error']);
  expect((response.body as { error: string }).error).toMatch(message);
}

describe('strings and JSON Postgres cannot store are a 400 naming the field', () => {
  it.each([
    ['GET', '/transcripts/google_meet/%00'],
    ['GET', '/transcripts/google_meet/%00/stream'],
    ['DELETE', '/bots/google_meet/%00'],
    ['DELETE', '/meetings/google_meet/%00'],
    ['PATCH', '/meetings/google_meet/%00'],
    ['PUT', '/bots/google_meet/%00/config'],
    ['GET', '/transcripts/google_meet/abc%00def'],
  ])('NUL in the path: %s %s', async (method, path) => {
    const json = method === 'PATCH' ? { data: {} } : method === 'PUT' ? { language: 'de' } : undefined;
    await expectError(
      await api.request(method, path, { key: user.key, json }),
      400,
      /^native_meeting_id: must not contain NUL/,
    );
  });

  it('NUL in the admin email path', async () => {
    await expectError(
      await api.request('GET', '/admin/users/email/a%00b@example.com', { adminKey: ADMIN_KEY }),
      400,
      /^email: must not contain NUL/,
    );
  });

  it.each([
    ['bot_name', googleMeetBot('nul-inbo-tnm', { bot_name: 'Note\u0000s' })],
    ['passcode', teamsBot('555', { passcode: 'Ab\u0000c', meeting_url: undefined })],
    ['meeting_url', googleMeetBot('nul-inme-url', { meeting_url: 'https://meet.google.com/\u0000' })],
  ])('NUL in %s of POST /bots, and nothing is created', async (field, body) => {
    await expectError(
      await api.request('POST', '/bots', { key: user.key, json: body }),
      400,
      new RegExp(`^${field}: must not contain NUL`),
    );
    const rows = await api.database.db('meetings').where({ user_id: user.id });
    expect(rows).toEqual([]);
  });

  it('NUL in an admin user name', async () => {
    await expectError(
      await api.request('POST', '/admin/users', {
        adminKey: ADMIN_KEY,
        json: { email: 'nul@example.com', name: 'A\u0000B' },
      }),
      400,
      /^name: must not contain NUL/,
    );
  });

  describe('in meeting data', () => {
    let nativeId: string;
    beforeAll(async () => {
      nativeId = 'dat-ahos-tle';
      const created = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(nativeId) });
      expect(created.status).toBe(201);
    });

    it.each([
      ['a NUL in a value', { notes: 'a\u0000b' }, /^data\.notes: must not contain NUL/],
      ['a NUL in a member name', { 'a\u0000b': 1 }, /^data: member name "a\\u0000b" must not contain NUL/],
      ['a lone high surrogate', { custom: 'x\ud800' }, /^data\.custom: must be valid Unicode/],
      [
        'a lone low surrogate in a list',
        { tags: ['ok', '\udc00'] },
        /^data\.tags\[1\]: must be valid Unicode/,
      ],
    ])('%s', async (_label, data, message) => {
      await expectError(
        await api.request('PATCH', `/meetings/google_meet/${nativeId}`, { key: user.key, json: { data } }),
        400,
        message,
      );
    });

    it('5,000-deep nesting', async () => {
      const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
      await expectError(
        await api.request('PATCH', `/meetings/google_meet/${nativeId}`, {
          key: user.key,
          headers: { 'Content-Type': 'application/json' },
          rawBody: `{"data":${deep}}`,
        }),
        400,
        /^data(\.a)+: is nested too deeply \(at most 32 levels\)$/,
      );
    });

    it('keeps a valid pair of surrogates (an emoji) as it is', async () => {
      const response = await api.request('PATCH', `/meetings/google_meet/${nativeId}`, {
        key: user.key,
        json: { data: { mood: 'ok 😀' } },
      });
      expect(response.status).toBe(200);
      expect(response.body.data.mood).toBe('ok 😀');
    });
  });
});

describe('numbers past what the database compares are a 400 naming the field', () => {
  it('meeting_id past a Postgres integer on GET /user/webhook/deliveries', async () => {
    await expectError(
      await api.request('GET', '/user/webhook/deliveries?meeting_id=2147483648', { key: user.key }),
      400,
      'meeting_id: must be at most 2147483647',
    );
  });

  it('skip past any offset on GET /admin/users', async () => {
    await expectError(
      await api.request('GET', '/admin/users?skip=123456789012345678901', { adminKey: ADMIN_KEY }),
      400,
      /^skip: must be at most 9007199254740991$/,
    );
  });

  it('offset and limit on GET /meetings', async () => {
    await expectError(
      await api.request('GET', '/meetings?offset=99999999999999999999', { key: user.key }),
      400,
      /^offset: must be at most/,
    );
    await expectError(
      await api.request('GET', '/meetings?limit=1001', { key: user.key }),
      400,
      'limit: must be at most 1000',
    );
  });
});

describe('a bot only ever goes to the meeting its id names', () => {
  it.each([
    ['google_meet', 'abc-defg-hij', 'https://meet.google.com/xyz-abcd-efg/x'],
    ['google_meet', 'abc-defg-hij', 'https://meet.google.com/XYZ-ABCD-EFG'],
    ['google_meet', 'abc-defg-hij', 'https://meet.google.com/xyzabcdefg'],
    ['google_meet', 'abc-defg-hij', 'https://meet.google.com/%78yz-abcd-efg'],
    ['google_meet', 'abc-defg-hij', 'https://meet.google.com:22/abc-defg-hij'],
    ['google_meet', 'abc-defg-hij', 'https://meet.google.com:444/abc-defg-hij'],
    ['teams', '1234', 'https://teams.microsoft.com/meet/5678/x?p=Abc123'],
    ['teams', '1234', 'https://teams.microsoft.com/meet/1234/x?p=Abc123'],
    ['teams', '1234', 'https://teams.microsoft.com:444/meet/1234?p=Abc123'],
  ])('%s %s: %s is refused and nothing is created', async (platform, id, url) => {
    const body =
      platform === 'teams' ? teamsBot(id, { meeting_url: url }) : googleMeetBot(id, { meeting_url: url });
    await expectError(
      await api.request('POST', '/bots', { key: user.key, json: body }),
      400,
      /^meeting_url: /,
    );
    expect(await api.database.db('meetings').where({ native_meeting_id: id })).toEqual([]);
  });
});

describe('webhook endpoints: the whole special-purpose address table and the allowed ports', () => {
  it.each([
    'https://[::127.0.0.1]/x',
    'https://[::7f00:1]/x',
    'https://[2002:7f00:1::1]/x',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x',
    'https://192.88.99.1/x',
    'https://[::ffff:192.168.1.1]/x',
    'https://93.184.215.14:22/x',
    'https://93.184.215.14:6379/x',
  ])('%s is refused', async (url) => {
    await expectError(
      await api.request('PUT', '/user/webhook', { key: user.key, json: { webhook_url: url } }),
      400,
      /^webhook_url: /,
    );
  });
});

describe("answers Node's parser gives are JSON too", () => {
  it.each([
    ['an unknown method', 'FOO /meetings HTTP/1.1\r\nHost: x\r\n\r\n', 405],
    ['a bad Content-Length', 'POST /bots HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    [
      'two Content-Lengths',
      'POST /bots HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      400,
    ],
    ['16 KB of headers', `GET /meetings HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
    ['a broken request line', 'GET /meetings HTTX/1.1\r\n\r\n', 400],
  ])('%s', async (_label, request, status) => {
    const answer = parseRawAnswer(await rawHttp(api.baseUrl, request));
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(answer.body as object)).toEqual(['error']);
  });

  it.each([
    ['an authority', 'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n'],
    ['a path', 'CONNECT /meetings HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('CONNECT to %s is 405 with Allow, not a dropped connection', async (_label, request) => {
    const answer = parseRawAnswer(await rawHttp(api.baseUrl, request));
    expect(answer.status).toBe(405);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(answer.body).toEqual({ error: 'Method not allowed: this server is not a proxy (CONNECT)' });
  });

  it.each(['999-bogus', '100-continuation', 'gzip', ''])(
    'Expect: %j is 417 with a JSON error (only 100-continue is supported)',
    async (expectation) => {
      const answer = parseRawAnswer(
        await rawHttp(api.baseUrl, `GET /meetings HTTP/1.1\r\nHost: x\r\nExpect: ${expectation}\r\n\r\n`),
      );
      expect(answer.status).toBe(417);
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.body).toEqual({ error: 'Expectation failed: only "Expect: 100-continue" is supported' });
    },
  );

  it('Expect: 100-continue still gets 100 Continue, then the answer to the body', async () => {
    const body = JSON.stringify(googleMeetBot('exp-ectc-ont'));
    const raw = await rawHttp(
      api.baseUrl,
      'POST /bots HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: 100-continue\r\n' +
        `X-API-Key: ${user.key}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      { keepSending: true },
    );
    expect(raw).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 Created\r\n/);
    const answer = parseRawAnswer(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(answer.body).toMatchObject({ platform: 'google_meet', native_meeting_id: 'exp-ectc-ont' });
  });

  it('a HEAD the parser refuses gets the headers only (a body would read as a second response)', async () => {
    const raw = await rawHttp(
      api.baseUrl,
      `HEAD /meetings HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(raw).toMatch(/\r\ncontent-type: application\/json/i);
    expect(raw.endsWith('\r\n\r\n')).toBe(true);
  });

  it.each(['TRACE', 'PROPFIND'])(
    '%s on a known path is 405 with Allow, as docs/api.md says',
    async (method) => {
      const answer = parseRawAnswer(
        await rawHttp(api.baseUrl, `${method} /meetings HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
      );
      expect(answer.status).toBe(405);
      expect(answer.headers.allow).toContain('GET');
      expect(answer.body).toEqual({ error: 'Method not allowed' });
    },
  );
});
