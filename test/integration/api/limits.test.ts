import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, googleMeetBot, startTestApi, type TestApi } from '../../support/api.js';
import { openSse, type SseClient } from '../../support/sse.js';

describe('rate limits, shared by the API replicas through Redis', () => {
  let api: TestApi;
  let replica: TestApi;

  beforeAll(async () => {
    const env = { RATE_LIMIT_PER_KEY_PER_MINUTE: '20', AUTH_FAILURES_PER_IP_PER_MINUTE: '10' };
    api = await startTestApi({ env, rateLimited: true });
    replica = await startTestApi({ env, rateLimited: true, replicaOf: api });
  });
  afterAll(async () => {
    await replica?.close();
    await api?.close();
  });

  it('throttles a key past its request rate with 429, Retry-After and its own message', async () => {
    const user = await api.createUser();
    const statuses: number[] = [];
    for (let index = 0; index < 25; index += 1) {
      // Alternating replicas: they count together.
      const server = index % 2 === 0 ? api : replica;
      statuses.push((await server.request('GET', '/meetings', { key: user.key })).status);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
    expect(statuses.slice(20)).toEqual(Array(5).fill(429));
    const refused = await api.request('GET', '/bots/status', { key: user.key });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(
      /^Rate limit exceeded: at most 20 requests per minute per API key; retry in \d+ s$/,
    );
    expect(refused.body.error).not.toBe('Too many concurrent bots');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another key of the same address is not held back by it.
    const other = await api.createUser();
    expect((await api.request('GET', '/meetings', { key: other.key })).status).toBe(200);
  });

  it('stops answering wrong keys from an address after its failures, even with a right key then', async () => {
    const user = await api.createUser();
    const wrong = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        (index % 2 === 0 ? api : replica).request('GET', '/meetings', { key: `mb_wrong${index}` }),
      ),
    );
    const counts = wrong.reduce<Record<number, number>>((all, response) => {
      all[response.status] = (all[response.status] ?? 0) + 1;
      return all;
    }, {});
    // The limit, give or take requests that were checked while others' failures were being counted.
    expect(counts[401]).toBeLessThanOrEqual(10 + 20);
    expect(counts[429]).toBeGreaterThanOrEqual(170);
    const blocked = await api.request('GET', '/meetings', { key: user.key });
    expect(blocked.status).toBe(429);
    expect(blocked.body.error).toMatch(/^Too many failed authentication attempts from this address/);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Wrong admin keys count too.
    expect((await api.request('GET', '/admin/users', { adminKey: 'wrong-admin-key-123456' })).status).toBe(
      429,
    );
    expect((await api.request('GET', '/admin/users', { adminKey: ADMIN_KEY })).status).toBe(429);
  });
});

describe('caps', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({
      env: {
        MEETING_DATA_MAX_BYTES: '2048',
        LIVE_STREAMS_PER_USER: '2',
        LIST_DEFAULT_LIMIT: '3',
        LIST_MAX_LIMIT: '5',
      },
    });
  });
  afterAll(() => api?.close());

  it("caps a meeting's data in total, not per request, and changes nothing past it", async () => {
    const user = await api.createUser();
    await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('cap-data-abc') });
    const path = '/meetings/google_meet/cap-data-abc';
    const responses = [];
    for (let index = 0; index < 5; index += 1) {
      responses.push(
        await api.request('PATCH', path, {
          key: user.key,
          json: { data: { [`part${index}`]: 'x'.repeat(600) } },
        }),
      );
    }
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 413, 413]);
    expect(responses[3]!.body.error).toMatch(/^data: the meeting's data would take more than 2048 bytes/);
    const stored = await api.database.db('meetings').where({ native_meeting_id: 'cap-data-abc' }).first();
    expect(Object.keys(stored.data).sort()).toEqual(['part0', 'part1', 'part2']);
    // Removing members makes room again.
    const removed = await api.request('PATCH', path, {
      key: user.key,
      json: { data: { part0: null, part3: 'y'.repeat(600) } },
    });
    expect(removed.status).toBe(200);
    expect(Object.keys(removed.body.data).sort()).toEqual(['part1', 'part2', 'part3']);
  });

  it('limits open live streams per user, and a closed one frees its place', async () => {
    const user = await api.createUser();
    const other = await api.createUser();
    await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('cap-stre-amx') });
    await api.request('POST', '/bots', { key: other.key, json: googleMeetBot('cap-stre-amx') });
    const url = `${api.baseUrl}/transcripts/google_meet/cap-stre-amx/stream`;
    const open: SseClient[] = [];
    try {
      open.push(await openSse(url, { 'X-API-Key': user.key }), await openSse(url, { 'X-API-Key': user.key }));
      expect(open.map((stream) => stream.status)).toEqual([200, 200]);
      const third = await api.request('GET', '/transcripts/google_meet/cap-stre-amx/stream', {
        key: user.key,
      });
      expect(third.status).toBe(429);
      expect(third.body).toEqual({
        error: 'Too many open live streams for this user (at most 2); close one first',
      });
      // The test API counts a stream 45 s after its last heartbeat.
      expect(third.headers.get('retry-after')).toBe('45');
      // Someone else's streams are counted apart.
      const others = await openSse(url, { 'X-API-Key': other.key });
      open.push(others);
      expect(others.status).toBe(200);
      open[0]!.close();
      await expect
        .poll(async () => {
          const again = await openSse(url, { 'X-API-Key': user.key });
          open.push(again);
          if (again.status !== 200) again.close();
          return again.status;
        })
        .toBe(200);
    } finally {
      for (const stream of open) stream.close();
    }
  });

  it('pages listings by default and refuses pages past the maximum', async () => {
    const user = await api.createUser({ maxConcurrentBots: 10 });
    for (const id of ['pag-eone-abc', 'pag-etwo-abc', 'pag-ethr-abc', 'pag-efou-abc']) {
      expect((await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) })).status).toBe(
        201,
      );
    }
    const first = await api.request('GET', '/meetings', { key: user.key });
    expect(
      first.body.meetings.map((meeting: { native_meeting_id: string }) => meeting.native_meeting_id),
    ).toEqual(['pag-efou-abc', 'pag-ethr-abc', 'pag-etwo-abc']);
    const next = await api.request('GET', '/meetings?offset=3', { key: user.key });
    expect(next.body.meetings).toHaveLength(1);
    expect((await api.request('GET', '/meetings?limit=5', { key: user.key })).body.meetings).toHaveLength(4);
    const tooMany = await api.request('GET', '/meetings?limit=6', { key: user.key });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ error: 'limit: must be at most 5' });
    expect((await api.request('GET', '/user/webhook/deliveries?limit=6', { key: user.key })).status).toBe(
      400,
    );
    expect((await api.request('GET', '/admin/users?limit=6', { adminKey: ADMIN_KEY })).status).toBe(400);
    expect((await api.request('GET', '/admin/users', { adminKey: ADMIN_KEY })).body).toHaveLength(3);
  });
});
