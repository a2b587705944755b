import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FeedFetchError, fetchFeed } from '../../../shared/calendars/fetch-feed.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { outboundAddressPolicyOf } from '../../../shared/infra/outbound-address-policy.js';
import { CalendarPoller, calendarFeedSettingsOf } from '../../../worker/calendars/calendar-poller.js';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { testBotServiceDeps } from '../../support/bot-service-deps.js';
import { IcsServer, icsCalendar, icsEvent, icsUtc } from '../../support/ics-server.js';
import { TEST_WEBHOOK_ENV } from '../../support/webhook-service.js';

// The /calendar-feeds routes against the real app and Postgres; a feed's fetch limits through its
// `last_poll`, as the worker's poller records it, against a local server on 127.0.0.1.

const log = createLogger('calendar-api-test', process.env.TEST_LOG_LEVEL ?? 'silent');
const MAX_BYTES = 4096;
const TIMEOUT_MS = 1000;
/** Private test addresses allowed (the webhook tests' settings). */
let open: TestApi;
/** The default address rules, but for plain http on any port: loopback and private addresses are refused. */
let strict: TestApi;
const ics = new IcsServer();

beforeAll(async () => {
  await ics.start();
  open = await startTestApi({
    env: {
      ...TEST_WEBHOOK_ENV,
      CALENDAR_FEED_MAX_PER_USER: '2',
      CALENDAR_FEED_MAX_BYTES: String(MAX_BYTES),
      CALENDAR_FEED_FETCH_TIMEOUT_MS: String(TIMEOUT_MS),
      CALENDAR_FEED_MAX_REDIRECTS: '2',
    },
  });
  strict = await startTestApi({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PORTS: 'any' } });
});

afterAll(async () => {
  await open?.close();
  await strict?.close();
  await ics.close();
});

const expectError = (response: { status: number; body: unknown }, status: number, pattern: RegExp) => {
  expect(response.status).toBe(status);
  expect(Object.keys(response.body as object)).toEqual(['error']);
  expect((response.body as { error: string }).error).toMatch(pattern);
};

async function create(api: TestApi, user: TestUser, body: Record<string, unknown>) {
  return api.request('POST', '/calendar-feeds', { key: user.key, json: body });
}

describe('/calendar-feeds', () => {
  it('registers, reads, changes and deletes a feed; defaults all events, marker #notetaker', async () => {
    const user = await open.createUser();
    const created = await create(open, user, { url: ics.url('/a.ics') });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      url: ics.url('/a.ics'),
      bot_name: null,
      events: 'all',
      marker: '#notetaker',
      last_poll: null,
    });
    const id = created.body.id;
    const read = await open.request('GET', `/calendar-feeds/${id}`, { key: user.key });
    expect(read.body).toEqual(created.body);
    const changed = await open.request('PATCH', `/calendar-feeds/${id}`, {
      key: user.key,
      json: { events: 'marked', marker: '#record', bot_name: 'Scribe' },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id, events: 'marked', marker: '#record', bot_name: 'Scribe' });
    const list = await open.request('GET', '/calendar-feeds', { key: user.key });
    expect(list.body.calendar_feeds.map((feed: { id: number }) => feed.id)).toEqual([id]);
    expect((await open.request('DELETE', `/calendar-feeds/${id}`, { key: user.key })).status).toBe(204);
    expect((await open.request('GET', '/calendar-feeds', { key: user.key })).body.calendar_feeds).toEqual([]);
  });

  it('refuses invalid bodies and ids with 400 {error}', async () => {
    const user = await open.createUser();
    const cases: Array<[unknown, RegExp]> = [
      [{}, /url/],
      [{ url: 42 }, /url: must be a string/],
      [{ url: 'not a url' }, /url: must be an absolute https URL/],
      [{ url: 'ftp://127.0.0.1/feed.ics' }, /url: must be an https URL/],
      [{ url: ics.url('/a.ics'), events: 'some' }, /events: must be one of all, marked/],
      [{ url: ics.url('/a.ics'), marker: 'two words' }, /marker: must be one word/],
      [{ url: ics.url('/a.ics'), bot_name: '' }, /bot_name/],
      [[1, 2], /must be a JSON object/],
    ];
    for (const [body, pattern] of cases)
      expectError(await create(open, user, body as Record<string, unknown>), 400, pattern);
    const id = (await create(open, user, { url: ics.url('/a.ics') })).body.id;
    expectError(
      await open.request('PATCH', `/calendar-feeds/${id}`, { key: user.key, json: {} }),
      400,
      /at least one of url, bot_name, events, marker/,
    );
    expectError(
      await open.request('GET', '/calendar-feeds/abc', { key: user.key }),
      400,
      /id: must be a positive integer/,
    );
    expectError(
      await open.request('GET', '/calendar-feeds/99999999999', { key: user.key }),
      404,
      /Calendar feed not found/,
    );
    expectError(await open.request('GET', '/calendar-feeds', {}), 401, /Unauthorized/);
  });

  it("answers 404 for another user's feed, and lists only one's own", async () => {
    const owner = await open.createUser();
    const other = await open.createUser();
    const id = (await create(open, owner, { url: ics.url('/a.ics') })).body.id;
    expectError(
      await open.request('GET', `/calendar-feeds/${id}`, { key: other.key }),
      404,
      /^Calendar feed not found$/,
    );
    expectError(
      await open.request('PATCH', `/calendar-feeds/${id}`, { key: other.key, json: { events: 'marked' } }),
      404,
      /not found/,
    );
    expectError(await open.request('DELETE', `/calendar-feeds/${id}`, { key: other.key }), 404, /not found/);
    expect((await open.request('GET', '/calendar-feeds', { key: other.key })).body.calendar_feeds).toEqual(
      [],
    );
    expect((await open.request('GET', `/calendar-feeds/${id}`, { key: owner.key })).status).toBe(200);
  });

  it('holds each user to CALENDAR_FEED_MAX_PER_USER feeds, even when asked at once', async () => {
    const user = await open.createUser();
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) => create(open, user, { url: ics.url(`/${n}.ics`) })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 409, 409]);
    expectError(answers.find((answer) => answer.status === 409)!, 409, /CALENDAR_FEED_MAX_PER_USER is 2/);
    const first = answers.find((answer) => answer.status === 201)!.body.id;
    expect((await open.request('DELETE', `/calendar-feeds/${first}`, { key: user.key })).status).toBe(204);
    expect((await create(open, user, { url: ics.url('/5.ics') })).status).toBe(201);
  });

  it('refuses feed URLs on loopback and private addresses unless the operator allows them', async () => {
    const user = await strict.createUser();
    for (const url of [
      ics.url('/a.ics'),
      'http://10.1.2.3/feed.ics',
      `http://localhost:${ics.port}/a.ics`,
      'http://[::1]/x.ics',
    ]) {
      expectError(await create(strict, user, { url }), 400, /private, loopback or link-local address/);
    }
    const allowed = await create(strict, user, { url: 'http://93.184.215.14/calendar.ics' });
    expect(allowed.status, allowed.text).toBe(201);
    // A calendar app's subscription link is the same feed over https.
    const webcal = await create(strict, user, { url: 'webcal://93.184.215.14/basic.ics' });
    expect(webcal.body.url).toBe('https://93.184.215.14/basic.ics');
    expectError(
      await strict.request('PATCH', `/calendar-feeds/${allowed.body.id}`, {
        key: user.key,
        json: { url: 'http://169.254.169.254/latest' },
      }),
      400,
      /url: .*private, loopback or link-local/,
    );
  });
});

describe("a feed's fetch, as its last_poll tells", () => {
  async function pollOnly(user: TestUser, path: string) {
    const id = (await create(open, user, { url: ics.url(path) })).body.id;
    await open.database
      .db('calendar_feeds')
      .whereNot({ id })
      .update({ next_poll_at: open.database.db.raw("now() + interval '1 day'") });
    const poller = new CalendarPoller(
      {
        bots: testBotServiceDeps(open, log, { defaultBotName: 'Meetbot', extraMeetingOrigins: [] }),
        settings: calendarFeedSettingsOf(open.config, outboundAddressPolicyOf(open.config)),
        log,
      },
      { tickMs: 1000, leaseSeconds: 60 },
    );
    expect(await poller.pollDue()).toBe(1);
    const feed = await open.request('GET', `/calendar-feeds/${id}`, { key: user.key });
    await open.request('DELETE', `/calendar-feeds/${id}`, { key: user.key });
    return feed.body.last_poll;
  }

  const event = icsEvent([
    'UID:fetch-test',
    `DTSTART:${icsUtc(new Date(Date.now() + 86_400_000))}`,
    'DURATION:PT30M',
    'LOCATION:https://meet.google.com/pqr-stuv-wxy',
  ]);

  it('reads a feed behind redirects, and reports one it could not fetch or read, changing no bot', async () => {
    const user = await open.createUser({ maxConcurrentBots: 5 });
    ics.feeds.set('/good.ics', icsCalendar([event]));
    ics.routes.set('/moved.ics', (_request, response) =>
      response.writeHead(302, { Location: '/good.ics' }).end(),
    );
    expect(await pollOnly(user, '/moved.ics')).toMatchObject({
      ok: true,
      error: null,
      scheduled: 1,
      occurrences: 1,
    });
    expect(await pollOnly(user, '/missing.ics')).toMatchObject({
      ok: false,
      error: 'the feed answered HTTP 404',
      scheduled: 0,
    });
    ics.feeds.set('/html.ics', '<html><body>Sign in</body></html>');
    const html = await pollOnly(user, '/html.ics');
    expect(html.ok).toBe(false);
    // Nothing of the answer is quoted back (the URL may name a service its user must not read).
    expect(html.error).toBe('not an iCalendar file: it could not be parsed');
    ics.routes.set('/loop.ics', (_request, response) =>
      response.writeHead(301, { Location: '/loop.ics' }).end(),
    );
    expect(await pollOnly(user, '/loop.ics')).toMatchObject({ ok: false, error: 'more than 2 redirects' });
  });

  it('stops reading at CALENDAR_FEED_MAX_BYTES, whether the size is announced or the answer is chunked', async () => {
    const user = await open.createUser();
    const big = `${icsCalendar([event])}${'X'.repeat(MAX_BYTES)}`;
    ics.routes.set('/big.ics', (_request, response) =>
      response.writeHead(200, { 'Content-Length': Buffer.byteLength(big) }).end(big),
    );
    let chunksSent = 0;
    ics.routes.set('/chunked.ics', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/calendar' });
      // Without Content-Length: chunked, and it never ends by itself.
      const timer = setInterval(() => {
        chunksSent += 1;
        if (!response.write('Y'.repeat(1000))) return;
      }, 5);
      response.on('close', () => clearInterval(timer));
    });
    expect(await pollOnly(user, '/big.ics')).toMatchObject({
      ok: false,
      error: `the feed is larger than ${MAX_BYTES} bytes`,
    });
    expect(await pollOnly(user, '/chunked.ics')).toMatchObject({
      ok: false,
      error: `the feed is larger than ${MAX_BYTES} bytes`,
    });
    expect(chunksSent).toBeGreaterThan(MAX_BYTES / 1000);
  });

  it('gives up at one deadline for the whole fetch, also against an answer that trickles in', async () => {
    const user = await open.createUser();
    ics.routes.set('/silent.ics', () => undefined);
    ics.routes.set('/trickle.ics', (_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/calendar' });
      // A byte every 100 ms: never idle for long, never done.
      const timer = setInterval(() => response.write('B'), 100);
      response.on('close', () => clearInterval(timer));
    });
    for (const path of ['/silent.ics', '/trickle.ics']) {
      expect(await pollOnly(user, path)).toMatchObject({
        ok: false,
        error: `no complete answer within ${TIMEOUT_MS} ms`,
      });
    }
  });

  it('checks every redirect against the address rules before following it', async () => {
    const policy = { allowPrivateAddresses: true, allowHttp: true, allowedPorts: [ics.port] };
    ics.routes.set('/elsewhere.ics', (_request, response) =>
      response.writeHead(302, { Location: 'http://127.0.0.1:1/internal' }).end(),
    );
    const limits = { timeoutMs: 2000, maxBytes: 10_000, maxRedirects: 3 };
    await expect(fetchFeed(ics.url('/elsewhere.ics'), policy, limits)).rejects.toThrow(
      new FeedFetchError(
        'a redirect to http://127.0.0.1:1/internal: port 1 is not allowed; webhook endpoints may use ports ' +
          ics.port,
      ),
    );
    const noPrivate = { allowPrivateAddresses: false, allowHttp: true, allowedPorts: 'any' as const };
    await expect(fetchFeed(ics.url('/good.ics'), noPrivate, limits)).rejects.toThrow(
      /private, loopback or link-local/,
    );
  });
});
