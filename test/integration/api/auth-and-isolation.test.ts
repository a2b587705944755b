import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireUser } from '../../../api/middleware/auth.js';
import { errorBodies } from '../../../api/middleware/errors.js';
import { noRateLimits } from '../../../api/middleware/rate-limits.js';
import { revokeApiKey } from '../../../shared/accounts/keys-store.js';
import { createKnex } from '../../../shared/infra/knex.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { upsertSegments } from '../../../shared/transcripts/store.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { transitionMeeting } from '../../support/meetings.js';

let api: TestApi;
let alice: TestUser;
let bob: TestUser;
let aliceMeetingId: number;

const ENDPOINTS: Array<[method: string, path: string, body?: unknown]> = [
  ['POST', '/bots', googleMeetBot('new-meet-ing')],
  ['DELETE', '/bots/google_meet/abc-defg-hij'],
  ['PUT', '/bots/google_meet/abc-defg-hij/config', { language: 'de' }],
  ['GET', '/bots/status'],
  ['GET', '/meetings'],
  ['GET', '/meetings/1'],
  ['GET', '/meetings/1/events'],
  ['PATCH', '/meetings/google_meet/abc-defg-hij', { data: { name: 'x' } }],
  ['DELETE', '/meetings/google_meet/abc-defg-hij'],
  ['GET', '/transcripts/google_meet/abc-defg-hij'],
  ['GET', '/transcripts/google_meet/abc-defg-hij/stream'],
  ['GET', '/search?q=secret'],
  ['GET', '/user/webhook'],
  ['PUT', '/user/webhook', { webhook_url: null }],
  ['POST', '/user/webhook/rotate-secret'],
  ['POST', '/user/webhook/test'],
  ['GET', '/user/webhook/deliveries'],
  ['POST', '/user/webhook/deliveries/9b2f7a38-86d1-4c65-9d65-3f0a3c1d7e11/retry'],
];

beforeAll(async () => {
  api = await startTestApi();
  alice = await api.createUser();
  bob = await api.createUser();
  const created = await api.request('POST', '/bots', { key: alice.key, json: googleMeetBot('abc-defg-hij') });
  aliceMeetingId = created.body.id;
  await transitionMeeting(api.database.db, aliceMeetingId, { to: 'joining', source: 'test' });
  await transitionMeeting(api.database.db, aliceMeetingId, { to: 'awaiting_admission', source: 'test' });
  await transitionMeeting(api.database.db, aliceMeetingId, { to: 'active', source: 'test' });
  const now = new Date();
  await upsertSegments(api.database.db, [
    {
      meetingId: aliceMeetingId,
      segmentId: 's1',
      start: 1,
      end: 2,
      text: 'secret words',
      speaker: 'Alice',
      language: 'en',
      absoluteStartTime: now,
      absoluteEndTime: now,
      final: true,
    },
  ]);
});
afterAll(() => api.close());

describe('authentication', () => {
  it.each(ENDPOINTS)('%s %s without a key is 401 Unauthorized', async (method, path, body) => {
    const response = await api.request(method, path, { json: body });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'Unauthorized' });
  });

  it.each(ENDPOINTS)('%s %s with an unknown key is 401 Unauthorized', async (method, path, body) => {
    const response = await api.request(method, path, { key: 'mb_not-a-real-key', json: body });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'Unauthorized' });
  });

  it.each(ENDPOINTS.filter(([, , body]) => body !== undefined))(
    '%s %s checks the key before the body: bad key + bad body is 401',
    async (method, path) => {
      const response = await api.request(method, path, {
        key: 'wrong',
        rawBody: '{not json',
        headers: { 'Content-Type': 'text/plain' },
      });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'Unauthorized' });
    },
  );

  it('a revoked key stops working at once', async () => {
    const carol = await api.createUser();
    expect((await api.request('GET', '/meetings', { key: carol.key })).status).toBe(200);
    const [key] = await api.database.db('api_keys').where({ user_id: carol.id });
    await revokeApiKey(api.database.db, key.id);
    expect((await api.request('GET', '/meetings', { key: carol.key })).status).toBe(401);
  });

  it('stores keys only as SHA-256 hashes and records their use', async () => {
    const keys = await api.database.db('api_keys').where({ user_id: alice.id });
    expect(keys).toHaveLength(1);
    expect(keys[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(keys)).not.toContain(alice.key);
    expect(alice.key.startsWith(keys[0].prefix)).toBe(true);
    expect(keys[0].last_used_at).not.toBeNull();
  });
});

describe("a second user never sees or touches the first user's meetings", () => {
  it('GET /meetings lists only their own', async () => {
    const response = await api.request('GET', '/meetings', { key: bob.key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ meetings: [] });
  });

  it('GET /meetings/{id} of another user is 404 Meeting not found', async () => {
    const response = await api.request('GET', `/meetings/${aliceMeetingId}`, { key: bob.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Meeting not found' });
  });

  it('GET /meetings/{id}/events of her meeting is 404 Meeting not found', async () => {
    const response = await api.request('GET', `/meetings/${aliceMeetingId}/events`, { key: bob.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Meeting not found' });
  });

  it('GET /bots/status lists none of hers', async () => {
    const response = await api.request('GET', '/bots/status', { key: bob.key });
    expect(response.body).toEqual({ running_bots: [] });
  });

  it('GET /transcripts of her meeting is 404', async () => {
    const response = await api.request('GET', '/transcripts/google_meet/abc-defg-hij', { key: bob.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Meeting not found' });
  });

  it('GET /search finds nothing of hers, and her meeting as a filter is 404', async () => {
    expect((await api.request('GET', '/search?q=secret', { key: alice.key })).body.total).toBe(1);
    const response = await api.request('GET', '/search?q=secret', { key: bob.key });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ total: 0, hits: [] });
    const filtered = await api.request('GET', `/search?q=secret&meeting_id=${aliceMeetingId}`, {
      key: bob.key,
    });
    expect(filtered.status).toBe(404);
    expect(filtered.body).toEqual({ error: 'Meeting not found' });
  });

  it('PATCH of her meeting is 404 and changes nothing', async () => {
    const response = await api.request('PATCH', '/meetings/google_meet/abc-defg-hij', {
      key: bob.key,
      json: { data: { name: 'hijacked' } },
    });
    expect(response.status).toBe(404);
    const row = await api.database.db('meetings').where({ id: aliceMeetingId }).first();
    expect(row.data).toEqual({});
  });

  it('PUT config of her bot is 404 Bot not found and sends nothing', async () => {
    const response = await api.request('PUT', '/bots/google_meet/abc-defg-hij/config', {
      key: bob.key,
      json: { language: 'de' },
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Bot not found' });
    expect(await api.queues.launch.getJobCounts()).toMatchObject({ waiting: 1 }); // only Alice's launch
  });

  it('DELETE of her bot is 404 and her bot keeps running', async () => {
    const response = await api.request('DELETE', '/bots/google_meet/abc-defg-hij', { key: bob.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Bot not found' });
    const row = await api.database.db('meetings').where({ id: aliceMeetingId }).first();
    expect(row.status).toBe('active');
  });

  it('DELETE of her meeting data is 404 and deletes nothing', async () => {
    const response = await api.request('DELETE', '/meetings/google_meet/abc-defg-hij', { key: bob.key });
    expect(response.status).toBe(404);
    expect(await api.database.db('transcript_segments').where({ meeting_id: aliceMeetingId })).toHaveLength(
      1,
    );
  });

  it('he can start his own bot for the same meeting id; each sees only their own', async () => {
    const created = await api.request('POST', '/bots', { key: bob.key, json: googleMeetBot('abc-defg-hij') });
    expect(created.status).toBe(201);
    const bobsTranscript = await api.request('GET', '/transcripts/google_meet/abc-defg-hij', {
      key: bob.key,
    });
    expect(bobsTranscript.body.id).toBe(created.body.id);
    expect(bobsTranscript.body.segments).toEqual([]);
    const alicesTranscript = await api.request('GET', '/transcripts/google_meet/abc-defg-hij', {
      key: alice.key,
    });
    expect(alicesTranscript.body.id).toBe(aliceMeetingId);
    expect(alicesTranscript.body.segments).toHaveLength(1);
  });
});

// Last: it starts another bot for her, which the queue counts above must not see.
describe("a second user never sees the first user's webhook", () => {
  it('her webhook settings and deliveries stay hers', async () => {
    const set = await api.request('PUT', '/user/webhook', {
      key: alice.key,
      json: { webhook_url: 'https://93.184.215.14/alice' },
    });
    expect(set.status).toBe(200);
    await api.request('POST', '/bots', { key: alice.key, json: googleMeetBot('whk-alic-eee') });
    const hers = await api.request('GET', '/user/webhook/deliveries', { key: alice.key });
    expect(hers.body.deliveries).toHaveLength(1);

    const bobs = await api.request('GET', '/user/webhook', { key: bob.key });
    expect(bobs.body.webhook_url).toBeNull();
    expect(bobs.body.webhook_secret).not.toBe(set.body.webhook_secret);
    const list = await api.request('GET', '/user/webhook/deliveries', { key: bob.key });
    expect(list.body).toEqual({ deliveries: [] });
    const retry = await api.request('POST', `/user/webhook/deliveries/${hers.body.deliveries[0].id}/retry`, {
      key: bob.key,
    });
    expect(retry.status).toBe(404);
    expect(retry.body).toEqual({ error: 'Delivery not found' });
  });
});

describe('while Postgres is down', () => {
  it('a wrong key is 503 with Retry-After, as docs/api.md says: keys cannot be checked; no key is still 401', async () => {
    const unreachable = createKnex('postgres://postgres@127.0.0.1:9/none', 1);
    const app = new Koa();
    app.silent = true;
    app.use(async (ctx, next) => {
      ctx.state.log = createLogger('auth-test', 'silent');
      await next();
    });
    app.use(errorBodies());
    app.use(requireUser(unreachable, noRateLimits));
    app.use((ctx) => {
      ctx.body = { reached: true };
    });
    const server = app.listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/meetings`;
      const wrong = await fetch(url, { headers: { 'X-API-Key': 'not-a-key' } });
      expect(wrong.status).toBe(503);
      expect(wrong.headers.get('retry-after')).toBe('5');
      expect(await wrong.json()).toEqual({ error: 'Database unavailable; try again shortly' });
      const none = await fetch(url);
      expect(none.status).toBe(401);
      expect(await none.json()).toEqual({ error: 'Unauthorized' });
    } finally {
      server.close();
      await unreachable.destroy();
    }
  });
});
