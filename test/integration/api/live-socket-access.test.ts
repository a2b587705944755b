import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { OpenFeeds } from '../../../api/live/open-feeds.js';
import { liveSocketSlots } from '../../../api/live/slots.js';
import { noRateLimits } from '../../../api/middleware/rate-limits.js';
import { attachLiveSockets } from '../../../api/ws/server.js';
import { createKnex } from '../../../shared/infra/knex.js';
import { MeetingChangeListener } from '../../../shared/meetings/changes.js';
import { ADMIN_KEY, googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { createTestRedis } from '../../support/redis.js';
import {
  type LiveSocketClient,
  openLiveSocket,
  refusedUpgrade,
  socketUrl,
} from '../../support/live-socket.js';

let api: TestApi;
let user: TestUser;
const sockets: LiveSocketClient[] = [];

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser({ maxConcurrentBots: 20 });
  await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('acc-essm-eet') });
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await api.close();
});

async function open(
  instance: TestApi,
  options: { headers?: Record<string, string>; query?: string; autoPong?: boolean } = {},
): Promise<LiveSocketClient> {
  const socket = await openLiveSocket(socketUrl(instance.baseUrl, options.query), {
    headers: options.headers ?? {},
    ...(options.autoPong !== undefined && { autoPong: options.autoPong }),
  });
  sockets.push(socket);
  return socket;
}

/** Subscribes to the test meeting and waits for the acknowledgement: the socket is authenticated. */
async function subscribes(socket: LiveSocketClient): Promise<void> {
  const from = socket.frames.length;
  socket.send({ action: 'subscribe', meetings: [{ platform: 'google_meet', native_id: 'acc-essm-eet' }] });
  await socket.next((frame) => frame.type === 'subscribed', from);
}

describe('/ws authentication', () => {
  it('takes the key as X-API-Key, Authorization: Bearer, Vexa’s ?api_key= or a first auth message', async () => {
    await subscribes(await open(api, { headers: { 'X-API-Key': user.key } }));
    await subscribes(await open(api, { headers: { Authorization: `Bearer ${user.key}` } }));
    await subscribes(await open(api, { query: `?api_key=${encodeURIComponent(user.key)}` }));
    const browser = await open(api);
    browser.send({ action: 'auth', api_key: user.key });
    await browser.next((frame) => frame.type === 'authenticated');
    await subscribes(browser);
  });

  it('closes with an error frame and 4401 for a wrong or missing key', async () => {
    const wrong = await open(api, { headers: { 'X-API-Key': 'mb_not-a-key' } });
    expect(await wrong.closed).toEqual({ code: 4401, reason: 'Unauthorized' });
    expect(wrong.frames).toEqual([{ type: 'error', error: 'invalid_api_key', details: 'Unauthorized' }]);

    const wrongBearer = await open(api, { headers: { Authorization: 'Bearer mb_wrong' } });
    expect((await wrongBearer.closed).code).toBe(4401);

    const wrongMessage = await open(api);
    wrongMessage.send({ action: 'auth', api_key: 'mb_wrong' });
    expect((await wrongMessage.closed).code).toBe(4401);
    expect(wrongMessage.frames).toEqual([
      { type: 'error', error: 'invalid_api_key', details: 'Unauthorized' },
    ]);

    // Without a key, the first message must be the auth message.
    const keyless = await open(api);
    keyless.send({ action: 'subscribe', meetings: [{ meeting_id: 1 }] });
    expect((await keyless.closed).code).toBe(4401);
    expect(keyless.frames).toEqual([
      {
        type: 'error',
        error: 'missing_api_key',
        details: expect.stringMatching(/^Unauthorized: no API key/),
      },
    ]);

    const malformed = await open(api);
    malformed.send({ action: 'auth' });
    expect((await malformed.closed).code).toBe(4401);
    expect(malformed.frames).toEqual([
      { type: 'error', error: 'invalid_auth_payload', details: 'api_key: is required (a string)' },
    ]);
  });

  it('closes a socket that never says who it is', async () => {
    const quick = await startTestApi({ replicaOf: api, liveSockets: { authTimeoutMs: 300 } });
    try {
      const silent = await open(quick);
      expect((await silent.closed).code).toBe(4401);
      expect(silent.frames[0]).toMatchObject({ type: 'error', error: 'missing_api_key' });
    } finally {
      await quick.close();
    }
  });

  it('closes the socket once its key is revoked (checked at every ping)', async () => {
    const pinging = await startTestApi({ replicaOf: api, env: { WS_PING_INTERVAL_SECONDS: '1' } });
    try {
      const owner = await api.createUser();
      const socket = await open(pinging, { headers: { 'X-API-Key': owner.key } });
      socket.send({ action: 'ping' });
      await socket.next((frame) => frame.type === 'pong');
      const key = await api.database.db('api_keys').where({ user_id: owner.id }).first('id');
      const revoked = await api.request('DELETE', `/admin/tokens/${key.id}`, { adminKey: ADMIN_KEY });
      expect(revoked.status).toBe(204);
      expect(await socket.closed).toEqual({ code: 4401, reason: 'Unauthorized: the API key was revoked' });
      expect(socket.frames.at(-1)).toEqual({
        type: 'error',
        error: 'invalid_api_key',
        details: 'Unauthorized: the API key was revoked',
      });
    } finally {
      await pinging.close();
    }
  });

  it('closes with 1013 while Postgres is down: no key can be told right or wrong then', async () => {
    const unreachable = createKnex('postgres://postgres@127.0.0.1:9/none', 1);
    const log = pino({ level: 'silent' });
    const changes = new MeetingChangeListener(createTestRedis(), api.prefix, log);
    const openFeeds = new OpenFeeds();
    const server = createServer((_request, response) => response.end());
    attachLiveSockets(server, {
      handleRequest: (_request, response) => response.end(),
      db: unreachable,
      changes,
      rateLimits: noRateLimits,
      slots: liveSocketSlots(api.redis, api.prefix, { perKey: 10, staleMs: 90_000, log }),
      openFeeds,
      log,
      settings: {
        subscriptionsPerSocket: 10,
        pingIntervalMs: 30_000,
        authTimeoutMs: 10_000,
        feed: { pollMs: 2000, endQuietMs: 5000 },
      },
      messageMaxBytes: 16_384,
      trustProxy: false,
      publicBaseUrl: undefined,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (server.address() as AddressInfo).port;
      const socket = await openLiveSocket(`ws://127.0.0.1:${port}/ws`, {
        headers: { 'X-API-Key': user.key },
      });
      expect(await socket.closed).toEqual({ code: 1013, reason: 'Database unavailable; try again shortly' });
      expect(socket.frames).toEqual([
        { type: 'error', error: 'unavailable', details: 'Database unavailable; try again shortly' },
      ]);
    } finally {
      await openFeeds.closeAll();
      server.close();
      await changes.close();
      await unreachable.destroy();
    }
  });

  it('refuses a browser page of another site, as the rest of the API does, before upgrading', async () => {
    const url = new URL(api.baseUrl);
    const crossSite = await refusedUpgrade(
      openLiveSocket(socketUrl(api.baseUrl), {
        headers: { 'X-API-Key': user.key, Origin: 'https://evil.example.com' },
      }),
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body).toEqual({ error: 'Cross-site request refused: Origin is not this service' });
    const fetchSite = await refusedUpgrade(
      openLiveSocket(socketUrl(api.baseUrl), {
        headers: { 'X-API-Key': user.key, 'Sec-Fetch-Site': 'cross-site', Origin: url.origin },
      }),
    );
    expect(fetchSite.status).toBe(403);
    expect(fetchSite.body).toEqual({ error: 'Cross-site request refused (Sec-Fetch-Site: cross-site)' });
    // A page the API itself served may open one.
    await subscribes(
      await open(api, {
        headers: { 'X-API-Key': user.key, Origin: url.origin, 'Sec-Fetch-Site': 'same-origin' },
      }),
    );
  });

  it('never logs a key sent in the URL', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, { write: (line: string) => lines.push(line) });
    const logged = await startTestApi({ replicaOf: api, logger });
    try {
      const socket = await open(logged, { query: `?api_key=${encodeURIComponent(user.key)}&x=1` });
      await subscribes(socket);
      socket.close();
      await socket.closed;
      const wrong = await open(logged, { query: '?api_key=mb_wrong-key-in-the-url' });
      await wrong.closed;
      await expect.poll(() => lines.some((line) => line.includes('live socket closed'))).toBe(true);
      expect(
        lines.some((line) => line.includes('live socket opened') && line.includes('"keyFrom":"query"')),
      ).toBe(true);
      const text = lines.join('\n');
      expect(text).not.toContain(user.key);
      expect(text).not.toContain('mb_wrong-key-in-the-url');
      expect(text).not.toContain('api_key');
    } finally {
      await logged.close();
    }
  });
});

describe('/ws messages', () => {
  it('answers an invalid message with an error frame and keeps the socket open', async () => {
    const socket = await open(api, { headers: { 'X-API-Key': user.key } });
    const answer = async (message: unknown, binary = false) => {
      const from = socket.frames.length;
      if (binary) socket.ws.send(Buffer.from([1, 2, 3]), { binary: true });
      else socket.send(message);
      return socket.next((frame) => frame.type === 'error', from);
    };
    expect(await answer('{not json')).toEqual({
      type: 'error',
      error: 'invalid_json',
      details: 'Message is not valid JSON',
    });
    expect(await answer('[1,2]')).toMatchObject({ error: 'invalid_json' });
    expect(await answer('null')).toMatchObject({ error: 'invalid_json' });
    expect(await answer(undefined, true)).toMatchObject({
      error: 'invalid_json',
      details: 'Send JSON text frames',
    });
    expect(await answer({ action: 'dance' })).toEqual({
      type: 'error',
      error: 'unknown_action',
      details: '"action" must be one of auth, subscribe, unsubscribe, ping (got "dance")',
    });
    expect(await answer({ meetings: [] })).toMatchObject({ error: 'unknown_action' });
    expect(await answer({ action: 'subscribe' })).toEqual({
      type: 'error',
      error: 'invalid_subscribe_payload',
      details: 'meetings: must be a list of meetings',
    });
    expect(await answer({ action: 'subscribe', meetings: [] })).toMatchObject({
      details: 'meetings: must name at least one meeting',
    });
    expect(
      await answer({ action: 'subscribe', meetings: [{ platform: 'webex', native_id: '123' }] }),
    ).toMatchObject({
      error: 'invalid_subscribe_payload',
      details: 'meetings[0].platform: must be one of google_meet, teams, zoom',
    });
    expect(await answer({ action: 'subscribe', meetings: [{ platform: 'google_meet' }] })).toMatchObject({
      details: 'meetings[0].native_id: is required (or give meeting_id)',
    });
    expect(
      await answer({ action: 'subscribe', meetings: [{ platform: 'google_meet', native_id: 'a\u0000b' }] }),
    ).toMatchObject({ details: 'meetings[0].native_id: must not contain NUL (\\u0000) characters' });
    expect(await answer({ action: 'subscribe', meetings: [{ meeting_id: 'seven' }] })).toMatchObject({
      details: 'meetings[0].meeting_id: must be a positive integer',
    });
    expect(
      await answer({ action: 'subscribe', meetings: [{ meeting_id: 1, cursor: 'yesterday' }] }),
    ).toMatchObject({
      details:
        'meetings[0].cursor: must be the cursor of a data frame (<status>-<segment>-<chat>-<participant>, digits)',
    });
    expect(await answer({ action: 'unsubscribe', meetings: 'all' })).toMatchObject({
      error: 'invalid_unsubscribe_payload',
    });
    expect(await answer({ action: 'auth', api_key: user.key })).toMatchObject({
      error: 'already_authenticated',
    });
    // Still open and working.
    const from = socket.frames.length;
    socket.send({ action: 'ping' });
    expect(await socket.next((frame) => frame.type === 'pong', from)).toEqual({ type: 'pong' });
    await subscribes(socket);
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes a socket that keeps sending invalid messages (1008), and one whose message is over the size cap (1009)', async () => {
    const abusive = await open(api, { headers: { 'X-API-Key': user.key } });
    for (let index = 0; index < 25; index += 1) abusive.send('nonsense');
    expect(await abusive.closed).toEqual({ code: 1008, reason: 'More than 20 invalid messages in a minute' });
    expect(abusive.frames.at(-1)).toMatchObject({ type: 'error', error: 'too_many_invalid_messages' });
    expect(abusive.frames.filter((frame) => frame.error === 'invalid_json')).toHaveLength(21);

    const large = await open(api, { headers: { 'X-API-Key': user.key } });
    await subscribes(large);
    large.send({ action: 'ping', padding: 'x'.repeat(api.config.WS_MESSAGE_MAX_BYTES) });
    expect((await large.closed).code).toBe(1009);
  });

  it('answers a plain GET /ws, and other upgrades, as HTTP', async () => {
    const plain = await api.request('GET', '/ws');
    expect(plain.status).toBe(426);
    expect(plain.headers.get('upgrade')).toBe('websocket');
    expect(plain.body.error).toMatch(/^Upgrade required: \/ws is a WebSocket endpoint/);
    // An h2c upgrade (curl --http2) anywhere is served as the plain request it also is.
    const h2c = (path: string, method = 'GET') =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(
          `${api.baseUrl}${path}`,
          {
            method,
            headers: {
              Connection: 'Upgrade, HTTP2-Settings',
              Upgrade: 'h2c',
              'HTTP2-Settings': '',
              'X-API-Key': user.key,
            },
          },
          (response) => {
            let body = '';
            response.on('data', (chunk: Buffer) => {
              body += chunk.toString();
            });
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          },
        );
        request.on('error', reject);
        request.end();
      });
    const meetings = await h2c('/meetings');
    expect(meetings.status).toBe(200);
    expect(JSON.parse(meetings.body).meetings).toHaveLength(1);
    expect(await h2c('/ws')).toMatchObject({ status: 426 });
    // A WebSocket upgrade elsewhere finds nothing there.
    const elsewhere = await refusedUpgrade(
      openLiveSocket(`${socketUrl(api.baseUrl)}-not-here`, { headers: { 'X-API-Key': user.key } }),
    );
    expect(elsewhere).toMatchObject({ status: 404, body: { error: 'Not found' } });
  });
});

describe('/ws limits', () => {
  let limited: TestApi;

  beforeAll(async () => {
    limited = await startTestApi({
      replicaOf: api,
      rateLimited: true,
      env: {
        WS_SOCKETS_PER_KEY: '2',
        WS_SUBSCRIPTIONS_PER_SOCKET: '2',
        RATE_LIMIT_PER_KEY_PER_MINUTE: '12',
        AUTH_FAILURES_PER_IP_PER_MINUTE: '3',
      },
    });
  });
  afterAll(() => limited?.close());

  it('limits open sockets per key across replicas, and a closed one frees its place', async () => {
    const owner = await api.createUser();
    const [first, second] = [
      await open(limited, { headers: { 'X-API-Key': owner.key } }),
      await open(api, { headers: { 'X-API-Key': owner.key } }),
    ];
    first.send({ action: 'ping' });
    await first.next((frame) => frame.type === 'pong');
    second.send({ action: 'ping' });
    await second.next((frame) => frame.type === 'pong');
    // The limited replica counts the other replica's socket too (WS_SOCKETS_PER_KEY is 2 there).
    const third = await open(limited, { headers: { 'X-API-Key': owner.key } });
    expect(await third.closed).toEqual({
      code: 4429,
      reason: 'Too many open WebSockets for this API key (at most 2); close one first',
    });
    expect(third.frames).toEqual([
      {
        type: 'error',
        error: 'too_many_sockets',
        details: 'Too many open WebSockets for this API key (at most 2); close one first',
        retry_after: 90,
      },
    ]);
    // Another key of the same user counts apart.
    const { body: issued } = await api.request('POST', `/admin/users/${owner.id}/tokens`, {
      adminKey: ADMIN_KEY,
    });
    const otherKey = await open(limited, { headers: { 'X-API-Key': issued.token } });
    otherKey.send({ action: 'ping' });
    await otherKey.next((frame) => frame.type === 'pong');

    first.close();
    await first.closed;
    await expect
      .poll(async () => {
        const again = await open(limited, { headers: { 'X-API-Key': owner.key } });
        again.send({ action: 'ping' });
        const outcome = await Promise.race([
          again.next((frame) => frame.type === 'pong').then(() => 'open'),
          again.closed.then(() => 'refused'),
        ]);
        if (outcome === 'open') again.close();
        return outcome;
      })
      .toBe('open');
  });

  it('limits subscriptions per socket', async () => {
    const owner = await api.createUser({ maxConcurrentBots: 5 });
    const ids: number[] = [];
    for (const nativeId of ['lim-ones-ubx', 'lim-twos-ubx', 'lim-thre-ubx']) {
      ids.push(
        (await api.request('POST', '/bots', { key: owner.key, json: googleMeetBot(nativeId) })).body.id,
      );
    }
    const socket = await open(limited, { headers: { 'X-API-Key': owner.key } });
    socket.send({ action: 'subscribe', meetings: ids.map((id) => ({ meeting_id: id })) });
    expect(await socket.next((frame) => frame.type === 'error')).toMatchObject({
      error: 'invalid_subscribe_payload',
      details: "meetings: names at most 2 meetings (this socket's subscription limit)",
    });
    socket.send({ action: 'subscribe', meetings: [{ meeting_id: ids[0] }, { meeting_id: ids[1] }] });
    await socket.next((frame) => frame.type === 'subscribed');
    // Subscribing again to one it has is fine; a third is not.
    socket.send({ action: 'subscribe', meetings: [{ meeting_id: ids[1] }] });
    await socket.waitFor((frames) => frames.filter((frame) => frame.type === 'subscribed').length === 2);
    const from = socket.frames.length;
    socket.send({ action: 'subscribe', meetings: [{ meeting_id: ids[2] }] });
    expect(await socket.next((frame) => frame.type === 'error', from)).toEqual({
      type: 'error',
      error: 'too_many_subscriptions',
      details: 'A socket follows at most 2 meetings (2 now); unsubscribe from some first',
    });
    socket.send({ action: 'unsubscribe', meetings: [{ meeting_id: ids[0] }] });
    await socket.next((frame) => frame.type === 'unsubscribed', from);
    socket.send({ action: 'subscribe', meetings: [{ meeting_id: ids[2] }] });
    const subscribed = await socket.next((frame) => frame.type === 'subscribed', from);
    expect(subscribed.meetings.map((meeting: { meeting_id: number }) => meeting.meeting_id)).toEqual([
      ids[2],
    ]);
  });

  it('counts messages against the key’s request rate, answering the excess with an error frame', async () => {
    const owner = await api.createUser();
    const socket = await open(limited, { headers: { 'X-API-Key': owner.key } });
    // The upgrade counted as one request; 11 more pass.
    for (let index = 0; index < 14; index += 1) socket.send({ action: 'ping' });
    await socket.waitFor((frames) => frames.length === 14);
    expect(socket.frames.filter((frame) => frame.type === 'pong')).toHaveLength(11);
    const limitedFrames = socket.frames.filter((frame) => frame.type === 'error');
    expect(limitedFrames).toHaveLength(3);
    expect(limitedFrames[0]).toEqual({
      type: 'error',
      error: 'rate_limited',
      details: expect.stringMatching(
        /^Rate limit exceeded: at most 12 requests per minute per API key; retry in \d+ s$/,
      ),
      retry_after: expect.any(Number),
    });
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('stops a client address with too many failed keys, before looking the key up', async () => {
    const failures: number[] = [];
    for (let index = 0; index < 4; index += 1) {
      const socket = await open(limited, { headers: { 'X-API-Key': `mb_wrong-${index}` } });
      failures.push((await socket.closed).code);
    }
    // Three failures are allowed; the fourth is one too many.
    expect(failures).toEqual([4401, 4401, 4401, 4429]);
    const good = await open(limited, { headers: { 'X-API-Key': user.key } });
    expect((await good.closed).code).toBe(4429);
    expect(good.frames[0]).toMatchObject({
      type: 'error',
      error: 'rate_limited',
      details: expect.stringMatching(/^Too many failed authentication attempts from this address/),
    });
  });
});

describe('/ws heartbeat', () => {
  it('pings every WS_PING_INTERVAL_SECONDS and drops a client that stops answering', async () => {
    const pinging = await startTestApi({ replicaOf: api, env: { WS_PING_INTERVAL_SECONDS: '1' } });
    try {
      const answering = await open(pinging, { headers: { 'X-API-Key': user.key } });
      const deaf = await open(pinging, { headers: { 'X-API-Key': user.key }, autoPong: false });
      let pings = 0;
      answering.ws.on('ping', () => {
        pings += 1;
      });
      // Not answered by the time of the next ping: dropped without a close frame.
      expect((await deaf.closed).code).toBe(1006);
      await expect.poll(() => pings, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
      expect(answering.ws.readyState).toBe(WebSocket.OPEN);
      await subscribes(answering);
    } finally {
      await pinging.close();
    }
  });
});
