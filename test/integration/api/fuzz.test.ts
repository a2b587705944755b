import { request as httpRequest } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { parseRawAnswer, rawHttp } from '../../support/raw-http.js';

/**
 * ≥ 10,000 generated bad requests across every endpoint and method against the real API: no answer
 * may be a 5xx, every error must be `{ "error": string }` and nothing else, and the API must be
 * healthy, with its memory back near where it started, afterwards. FUZZ_SEED replays a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const CONCURRENCY = 16;

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = mulberry32(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const chance = (p: number) => random() < p;
const integer = (max: number) => Math.floor(random() * max);

const ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['POST', '/bots'],
  ['GET', '/bots/status'],
  ['DELETE', '/bots/{platform}/{id}'],
  ['PUT', '/bots/{platform}/{id}/config'],
  ['GET', '/meetings'],
  ['GET', '/meetings/{n}'],
  ['GET', '/meetings/{n}/events'],
  ['PATCH', '/meetings/{platform}/{id}'],
  ['DELETE', '/meetings/{platform}/{id}'],
  ['GET', '/transcripts/{platform}/{id}'],
  ['GET', '/transcripts/{platform}/{id}/stream'],
  ['GET', '/search'],
  ['POST', '/calendar-feeds'],
  ['GET', '/calendar-feeds'],
  ['GET', '/calendar-feeds/{n}'],
  ['PATCH', '/calendar-feeds/{n}'],
  ['DELETE', '/calendar-feeds/{n}'],
  ['GET', '/recordings/{n}'],
  ['GET', '/recordings/{n}/media'],
  ['HEAD', '/recordings/{n}/media'],
  ['DELETE', '/recordings/{n}'],
  ['POST', '/recordings/media-links/rotate'],
  ['GET', '/user/webhook'],
  ['PUT', '/user/webhook'],
  ['POST', '/user/webhook/rotate-secret'],
  ['POST', '/user/webhook/test'],
  ['GET', '/user/webhook/deliveries'],
  ['POST', '/user/webhook/deliveries/{uuid}/retry'],
  ['POST', '/admin/users'],
  ['GET', '/admin/users'],
  ['GET', '/admin/users/{n}'],
  ['PATCH', '/admin/users/{n}'],
  // The run's own user has bots in flight: deleting it is refused (409); decoys may go.
  ['DELETE', '/admin/users/{n}'],
  ['GET', '/admin/users/email/{email}'],
  ['GET', '/admin/users/{n}/webhook'],
  ['PUT', '/admin/users/{n}/webhook'],
  ['POST', '/admin/users/{n}/tokens'],
  ['DELETE', '/admin/tokens/{n}'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/openapi.json'],
  ['GET', '/docs'],
  ['GET', '/nowhere/{id}'],
  // Bull Board's state-changing API, always sent as another site's page would (with the operator's
  // Basic credentials a browser keeps): each must be refused.
  ['POST', '/admin/queues/api/queues/{queue}/add'],
  ['PUT', '/admin/queues/api/queues/{queue}/pause'],
  ['PUT', '/admin/queues/api/queues/{queue}/retry/failed'],
  ['PUT', '/admin/queues/api/queues/{queue}/clean/completed'],
  ['PUT', '/admin/queues/api/queues/{queue}/{n}/retry'],
  ['PATCH', '/admin/queues/api/queues/{queue}/{n}/update-data'],
];
const BOARD = '/admin/queues';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** How another site's page shows up: what browsers send on a cross-site form post or fetch. */
const CROSS_SITE_HEADERS: ReadonlyArray<Record<string, string>> = [
  { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
  { Origin: 'https://evil.example' },
  { Origin: 'null' },
  { 'Sec-Fetch-Site': 'same-site' },
  { 'Sec-Fetch-Site': 'cross-site' },
  { Origin: 'http://127.0.0.1:1' },
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'MKCOL'];

/** Hostile text: control characters, NUL, lone surrogates, odd Unicode, huge and empty. */
function nastyString(): string {
  return pick([
    () => '',
    () => '\u0000',
    () => `a\u0000b`,
    () => '\ud800',
    () => 'x\udfff',
    () => '😀'.repeat(integer(50)),
    () => 'A'.repeat(integer(20_000)),
    () => '../../etc/passwd',
    () => "' OR 1=1 --",
    () => ['$', '{jndi:ldap://127.0.0.1/a}'].join(''),
    () => '<script>alert(1)</script>',
    () => '\u202e\u200b\ufeff',
    () => String(2 ** 31),
    () => '-1',
    () => '1e309',
    () => 'NaN',
    () => 'abc-defg-hij',
    () => '123456789012',
    // URLs name loopback addresses only: a host name would be looked up (webhook_url checks resolve it),
    // and no lookup may leave the machine.
    () => 'https://127.0.0.1:4100/abc-defg-hij',
    () => 'https://[::1]/hook',
    () => 'http://127.0.0.1:22/',
    () => String.fromCharCode(...Array.from({ length: integer(40) }, () => integer(0x10000))),
  ])();
}

function nastyValue(depth = 0): unknown {
  const choices: Array<() => unknown> = [
    () => nastyString(),
    () => pick([0, -1, 1.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, Number.MIN_VALUE]),
    () => pick([true, false, null]),
    () => Array.from({ length: integer(5) }, () => nastyValue(depth + 1)),
    () =>
      Object.fromEntries(Array.from({ length: integer(5) }, () => [nastyString(), nastyValue(depth + 1)])),
    () => deepNesting(integer(3000)),
  ];
  return depth > 3 ? choices[integer(3)]!() : pick(choices)();
}

function deepNesting(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = chance(0.5) ? { a: value } : [value];
  return value;
}

const FIELDS = [
  'platform',
  'native_meeting_id',
  'passcode',
  'meeting_url',
  'bot_name',
  'language',
  'task',
  'webhook_url',
  'webhook_secret',
  'webhook_partial_segments',
  'data',
  'email',
  'name',
  'image_url',
  'max_concurrent_bots',
  'url',
  'events',
  'marker',
  '__proto__',
  'constructor',
];

/** A body that is almost right, or not JSON at all, or not the type announced. */
function nastyBody(): { body: string | undefined; contentType: string | undefined } {
  const kind = integer(10);
  if (kind === 0) return { body: undefined, contentType: pick([undefined, 'application/json']) };
  if (kind === 1) return { body: nastyString(), contentType: 'application/json' };
  if (kind === 2) return { body: '{"a":', contentType: 'application/json' };
  if (kind === 3)
    return {
      body: JSON.stringify(nastyValue()),
      contentType: pick([
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=latin1',
        'multipart/form-data',
      ]),
    };
  if (kind === 4)
    return { body: `{"data":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, contentType: 'application/json' };
  if (kind === 5) return { body: 'x'.repeat(70_000 + integer(200_000)), contentType: 'application/json' };
  const object: Record<string, unknown> = chance(0.5)
    ? { ...googleMeetBot(pick(['abc-defg-hij', 'fuz-zfuz-zzz'])) }
    : {};
  for (let index = integer(6); index > 0; index -= 1) object[pick(FIELDS)] = nastyValue();
  return { body: JSON.stringify(object), contentType: 'application/json' };
}

function pathSegment(kind: string): string {
  const raw = chance(0.25)
    ? ({
        platform: pick(['google_meet', 'teams', 'zoom']),
        id: pick(['abc-defg-hij', '123456789012']),
        n: '1',
        uuid: '00000000-0000-4000-8000-000000000000',
        email: 'a@example.com',
        queue: pick(['bot-launches', 'bot-control']),
      }[kind] ?? 'x')
    : nastyString();
  const encoded = encodeURIComponent(raw.replace(/[\ud800-\udfff]/g, '')).slice(0, 30_000);
  return pick([
    encoded,
    encoded,
    '%00',
    '%ff%fe', // not UTF-8 once decoded
    '%ED%A0%80', // an encoded lone surrogate
    '%',
    '%2e%2e',
    '%2F',
    '..',
    String(2 ** 31),
    '99999999999999999999999',
    '-5',
    '1.5',
  ]);
}

function nastyPath(template: string): string {
  let path = template.replace(/\{(\w+)\}/g, (_match, kind: string) => pathSegment(kind));
  if (chance(0.4)) {
    const params = Array.from({ length: 1 + integer(4) }, () => {
      const key = pick([
        'limit',
        'offset',
        'skip',
        'status',
        'meeting_id',
        'name',
        'format',
        'token',
        'q',
        'q',
        'from',
        'to',
        'speaker',
        'platform',
        'native_meeting_id',
        nastyString().slice(0, 20),
      ]);
      const value = chance(0.5)
        ? pick([
            '-1',
            '0',
            '1001',
            '1e3',
            '2147483648',
            '123456789012345678901',
            '',
            'failed',
            'vtt',
            'srt',
            // Search text as a tsquery parser might choke on it, and dates.
            '&|!():*',
            '"budget',
            "o'brien <-> !(a | b):*",
            '-budget',
            'teams',
            '2026-02-30',
            '2026-11-22T10:00:00Z',
            '9999-12-31',
          ])
        : nastyString();
      return `${encodeURIComponent(key.replace(/[\ud800-\udfff]/g, ''))}=${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, '')).slice(0, 5000)}`;
    });
    path += `?${params.join('&')}${chance(0.2) ? '&limit=1&limit=2' : ''}`;
  }
  return path;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

function send(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, Connection: 'close' },
        agent: false,
      },
      (response) => {
        const contentType = String(response.headers['content-type'] ?? '');
        if (contentType.startsWith('text/event-stream')) {
          // A stream that opened: enough is seen; don't hold it.
          response.destroy();
          resolve({ status: response.statusCode ?? 0, contentType, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.setTimeout(30_000, () =>
      request.destroy(new Error(`no answer to ${method} ${path.slice(0, 100)}`)),
    );
    if (body !== undefined) request.write(body);
    request.end();
  });
}

const collectGarbage = (): void => {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
};

let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  // Users and keys the fuzzer's ids (1, 2...) name, so revoking "key 1" doesn't end the run's own key.
  for (let decoy = 0; decoy < 3; decoy += 1) await api.createUser();
  user = await api.createUser({ maxConcurrentBots: 1000 });
  for (const id of ['abc-defg-hij', 'fuz-zfuz-zzz']) {
    await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
  }
});
afterAll(() => api?.close());

describe(`fuzzing the API (seed ${SEED}; replay with FUZZ_SEED=${SEED})`, () => {
  it(`answers ${REQUESTS} generated bad requests without a 5xx, each error as { "error": string }`, async () => {
    collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    const byStatus = new Map<number, number>();
    const problems: string[] = [];
    let next = 0;

    const one = async (index: number) => {
      const [routeMethod, template] = pick(ROUTES);
      const method = chance(0.85) ? routeMethod : pick(METHODS);
      const path = nastyPath(template);
      const headers: Record<string, string> = {};
      const auth = integer(10);
      if (auth < 6) headers['X-API-Key'] = user.key;
      else if (auth === 6) headers['X-API-Key'] = `mb_${'x'.repeat(integer(300))}`;
      else if (auth === 7) headers['X-Admin-API-Key'] = ADMIN_KEY;
      else if (auth === 8)
        headers.Authorization = pick([
          'Basic',
          'Basic !!!',
          `Basic ${Buffer.from(`:${ADMIN_KEY}`).toString('base64')}`,
          'Bearer x',
        ]);
      if (path.startsWith('/admin') && chance(0.8)) headers['X-Admin-API-Key'] = ADMIN_KEY;
      if (chance(0.1))
        headers.Accept = pick([
          'text/vtt',
          'text/plain;q=0.5, */*;q=0',
          'image/png',
          ',;q=x',
          `text/${'x,'.repeat(integer(5000))}`,
        ]);
      if (chance(0.1))
        headers.Range = pick([
          'bytes=0-1',
          'bytes=-5',
          'bytes=9-3',
          'bytes=0-0,5-',
          'bytes=x-y',
          'items=0-1',
          'bytes=99999999999999999999-',
        ]);
      if (chance(0.1)) headers['Last-Event-ID'] = pick(['1-1', '999999999999999999-1', '-1--1', 'x', '1-']);
      const crossSiteBoard = template.startsWith(BOARD);
      if (crossSiteBoard) {
        headers.Authorization = `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`;
        Object.assign(headers, pick(CROSS_SITE_HEADERS));
      }
      const { body, contentType } = nastyBody();
      if (contentType) headers['Content-Type'] = contentType;
      if (chance(0.05)) headers['Content-Encoding'] = pick(['gzip', 'br', 'x-nope']);
      let answer: Answer;
      try {
        answer = await send(
          api.baseUrl,
          method,
          path,
          headers,
          method === 'GET' || method === 'HEAD' ? undefined : body,
        );
      } catch (error) {
        problems.push(`#${index} ${method} ${path.slice(0, 120)}: ${(error as Error).message}`);
        return;
      }
      byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
      const where = `#${index} ${method} ${path.slice(0, 120)} → ${answer.status}`;
      if (answer.status >= 500) problems.push(`${where} ${answer.body.slice(0, 200)}`);
      // (Node's HTTP parser turns some away before the app sees them: oversized or malformed.)
      const refused =
        answer.status === 403 || answer.status === 431 || answer.body.includes('malformed HTTP');
      if (crossSiteBoard && !SAFE_METHODS.has(method) && !refused)
        problems.push(`${where} cross-site board request not refused: ${answer.body.slice(0, 200)}`);
      if (answer.status >= 400 && method !== 'HEAD') {
        let parsed: unknown;
        try {
          parsed = JSON.parse(answer.body);
        } catch {
          parsed = undefined;
        }
        const keys = parsed && typeof parsed === 'object' ? Object.keys(parsed) : [];
        const message = (parsed as { error?: unknown } | undefined)?.error;
        if (keys.length !== 1 || keys[0] !== 'error' || typeof message !== 'string' || message.length === 0) {
          problems.push(`${where} body not {error}: ${answer.body.slice(0, 200)}`);
        }
        if (!answer.contentType.startsWith('application/json'))
          problems.push(`${where} content-type ${answer.contentType}`);
      }
    };

    // Raw requests Node's client would refuse to send: bad request lines, methods and headers.
    const RAW = [
      'FOO /bots HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /meetings HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      'POST /bots HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      `GET /meetings HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
      'GET /meetings\u0000 HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /meetings HTTP/1.1\r\nHost: x\r\nX-API-Key: a\u0001b\r\n\r\n',
      'GET  HTTP/1.1\r\n\r\n',
      'POST /bots HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n',
      // CONNECT (a tunnel to somewhere) and expectations other than 100-continue, which Node itself answers.
      'CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n',
      'CONNECT /bots HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}',
      'GET /meetings HTTP/1.1\r\nHost: x\r\nExpect: 999-bogus\r\n\r\n',
      'POST /bots HTTP/1.1\r\nHost: x\r\nExpect:\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
      'DELETE /meetings/google_meet/abc-defg-hij HTTP/1.1\r\nHost: x\r\nExpect: 100-continuer\r\n\r\n',
      `PUT /user/webhook HTTP/1.1\r\nHost: x\r\nExpect: ${'e'.repeat(8000)}\r\n\r\n`,
    ];
    let rawCount = 0;
    const rawOne = async () => {
      const request = pick(RAW);
      const answer = parseRawAnswer(await rawHttp(api.baseUrl, request));
      rawCount += 1;
      byStatus.set(answer.status, (byStatus.get(answer.status) ?? 0) + 1);
      if (!(answer.status >= 400 && answer.status < 500))
        problems.push(`raw ${JSON.stringify(request.slice(0, 60))} → ${answer.status}`);
      const body = answer.body as { error?: unknown } | undefined;
      if (!body || Object.keys(body).join() !== 'error' || typeof body.error !== 'string') {
        problems.push(`raw ${JSON.stringify(request.slice(0, 60))} body not {error}`);
      }
    };

    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        for (;;) {
          const index = next++;
          if (index >= REQUESTS) return;
          if (index % 50 === 0) await rawOne();
          else await one(index);
        }
      }),
    );

    const counts = Object.fromEntries([...byStatus].sort(([a], [b]) => a - b));
    console.log(
      `fuzz seed ${SEED}: ${REQUESTS} requests (${rawCount} raw) by status ${JSON.stringify(counts)}`,
    );
    expect(problems).toEqual([]);
    expect([...byStatus.values()].reduce((a, b) => a + b, 0)).toBe(REQUESTS);

    // Nothing the cross-site board requests asked for happened.
    for (const queue of [api.queues.launch, api.queues.control]) {
      expect(await queue.isPaused()).toBe(false);
      const names = new Set((await queue.getJobs()).map((job) => job.name));
      expect([...names].filter((name) => name !== 'launch-bot' && name !== 'stop-bot')).toEqual([]);
    }

    // Still healthy, and what the requests used was given back.
    expect((await api.request('GET', '/readyz')).status).toBe(200);
    expect((await api.request('GET', '/meetings', { key: (await api.createUser()).key })).status).toBe(200);
    collectGarbage();
    const grownMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
    console.log(
      `fuzz seed ${SEED}: heap ${(heapBefore / 2 ** 20).toFixed(0)} MB before, ${grownMb.toFixed(1)} MB more after`,
    );
    expect(grownMb).toBeLessThan(64);
  }, 600_000);
});
