import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, googleMeetBot, startTestApi, type TestApi } from '../../support/api.js';
import type { FakeBots } from '../../support/fake-bot.js';
import type { WebhookReceiver } from '../../support/webhook-receiver.js';
import { startWebhookWorld, type WebhookWorld } from '../../support/webhook-service.js';

describe('webhook endpoints refused by default', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => {
    await api.close();
  });

  it.each([
    ['https://127.0.0.1:8443/hooks', 'private, loopback or link-local'],
    ['https://localhost/hooks', 'private, loopback or link-local'],
    ['https://10.1.2.3/hooks', 'private, loopback or link-local'],
    ['https://192.168.1.20/hooks', 'private, loopback or link-local'],
    ['https://172.20.0.1/hooks', 'private, loopback or link-local'],
    ['https://169.254.169.254/latest/meta-data', 'private, loopback or link-local'],
    ['https://[::1]/hooks', 'private, loopback or link-local'],
    ['https://[fe80::1]/hooks', 'private, loopback or link-local'],
    ['https://[fd00::5]/hooks', 'private, loopback or link-local'],
    ['https://[::ffff:127.0.0.1]/hooks', 'private, loopback or link-local'],
    ['https://0.0.0.0/hooks', 'private, loopback or link-local'],
    ['http://8.8.8.8/hooks', 'must be an https URL'],
    ['ftp://example.com/hooks', 'must be an https URL'],
    ['not a url', 'must be an absolute https URL'],
    ['https://user:pass@8.8.8.8/hooks', 'must not contain a user name or password'],
  ])('PUT /user/webhook refuses %s', async (url, reason) => {
    const user = await api.createUser();
    const response = await api.request('PUT', '/user/webhook', { key: user.key, json: { webhook_url: url } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^webhook_url: /);
    expect(response.body.error).toContain(reason);
    // Nothing was stored.
    const settings = await api.request('GET', '/user/webhook', { key: user.key });
    expect(settings.body.webhook_url).toBeNull();
  });

  it('POST /bots refuses a private webhook_url and starts nothing', async () => {
    const user = await api.createUser();
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('pri-vate-hoo', { webhook_url: 'https://192.168.0.10/hook' }),
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(
      /^webhook_url: 192\.168\.0\.10 is a private, loopback or link-local address/,
    );
    const meetings = await api.request('GET', '/meetings', { key: user.key });
    expect(meetings.body.meetings).toEqual([]);
  });

  it('accepts a public https endpoint given by address', async () => {
    const user = await api.createUser();
    const response = await api.request('PUT', '/user/webhook', {
      key: user.key,
      json: { webhook_url: 'https://93.184.215.14/hooks?team=1' },
    });
    expect(response.status).toBe(200);
    expect(response.body.webhook_url).toBe('https://93.184.215.14/hooks?team=1');
  });

  it('checks the shape of the settings and of the bot fields', async () => {
    const user = await api.createUser();
    const cases: Array<[string, string, unknown, string]> = [
      ['PUT', '/user/webhook', {}, 'webhook_url: '],
      ['PUT', '/user/webhook', { webhook_url: 5 }, 'webhook_url: must be a string'],
      [
        'PUT',
        '/user/webhook',
        { webhook_url: null, webhook_secret: 'short' },
        'webhook_secret: must be at least 16',
      ],
      [
        'PUT',
        '/user/webhook',
        { webhook_url: null, webhook_partial_segments: 'yes' },
        'webhook_partial_segments: must be true or false',
      ],
      [
        'POST',
        '/bots',
        googleMeetBot('abc-defg-hij', { webhook_secret: 'a-secret-of-enough-length' }),
        'webhook_secret: requires webhook_url',
      ],
      [
        'POST',
        '/bots',
        googleMeetBot('abc-defg-hij', { webhook_partial_segments: true }),
        'webhook_partial_segments: requires webhook_url',
      ],
      [
        'POST',
        '/bots',
        googleMeetBot('abc-defg-hij', { webhook_url: 'http://93.184.215.14/' }),
        'webhook_url: must be an https URL',
      ],
    ];
    for (const [method, path, json, message] of cases) {
      const response = await api.request(method, path, { key: user.key, json });
      expect(response.status, `${method} ${path} ${JSON.stringify(json)}`).toBe(400);
      expect(response.body.error).toContain(message);
    }
    const meetings = await api.request('GET', '/meetings', { key: user.key });
    expect(meetings.body.meetings).toEqual([]);
  });

  it('keeps the secret across changes, takes a given one, rotates it, and turns webhooks off with null', async () => {
    const user = await api.createUser();
    const first = await api.request('GET', '/user/webhook', { key: user.key });
    expect(first.body).toEqual({
      webhook_url: null,
      webhook_secret: expect.stringMatching(/^whsec_/),
      webhook_partial_segments: false,
    });
    const set = await api.request('PUT', '/user/webhook', {
      key: user.key,
      json: { webhook_url: 'https://93.184.215.14/a', webhook_partial_segments: true },
    });
    expect(set.body).toEqual({
      webhook_url: 'https://93.184.215.14/a',
      webhook_secret: first.body.webhook_secret,
      webhook_partial_segments: true,
    });
    const own = await api.request('PUT', '/user/webhook', {
      key: user.key,
      json: { webhook_url: 'https://93.184.215.14/a', webhook_secret: 'my-own-secret-0123456789' },
    });
    expect(own.body.webhook_secret).toBe('my-own-secret-0123456789');
    expect(own.body.webhook_partial_segments).toBe(true);
    const rotated = await api.request('POST', '/user/webhook/rotate-secret', { key: user.key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.webhook_secret).toMatch(/^whsec_/);
    expect(rotated.body.webhook_secret).not.toBe('my-own-secret-0123456789');
    const off = await api.request('PUT', '/user/webhook', { key: user.key, json: { webhook_url: null } });
    expect(off.body).toMatchObject({ webhook_url: null, webhook_secret: rotated.body.webhook_secret });
  });

  it('lets the admin API set and read a user webhook, with the same policy', async () => {
    const user = await api.createUser();
    const refused = await api.request('PUT', `/admin/users/${user.id}/webhook`, {
      adminKey: ADMIN_KEY,
      json: { webhook_url: 'https://10.0.0.1/x' },
    });
    expect(refused.status).toBe(400);
    const set = await api.request('PUT', `/admin/users/${user.id}/webhook`, {
      adminKey: ADMIN_KEY,
      json: { webhook_url: 'https://93.184.215.14/admin-set' },
    });
    expect(set.status).toBe(200);
    const mine = await api.request('GET', '/user/webhook', { key: user.key });
    expect(mine.body).toEqual(set.body);
    const read = await api.request('GET', `/admin/users/${user.id}/webhook`, { adminKey: ADMIN_KEY });
    expect(read.body).toEqual(set.body);
    const missing = await api.request('PUT', '/admin/users/999999/webhook', {
      adminKey: ADMIN_KEY,
      json: { webhook_url: null },
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'User not found' });
    const noKey = await api.request('GET', `/admin/users/${user.id}/webhook`);
    expect(noKey.status).toBe(403);
  });

  it('checks delivery ids and filters', async () => {
    const user = await api.createUser();
    const badId = await api.request('POST', '/user/webhook/deliveries/42/retry', { key: user.key });
    expect(badId.status).toBe(400);
    expect(badId.body.error).toBe('id: must be a delivery id (UUID)');
    const unknown = await api.request(
      'POST',
      '/user/webhook/deliveries/9b2f7a38-86d1-4c65-9d65-3f0a3c1d7e11/retry',
      {
        key: user.key,
      },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Delivery not found' });
    const badFilter = await api.request('GET', '/user/webhook/deliveries?status=lost', { key: user.key });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error).toContain('status: must be one of pending, delivered, failed');
  });
});

describe('deliveries that keep failing', () => {
  let world: WebhookWorld;
  let api: TestApi;
  let bots: FakeBots;
  let endpoint: WebhookReceiver;

  beforeAll(async () => {
    // The API accepts private endpoints (to register the test receivers); the worker's own policy
    // is checked again when it connects.
    world = await startWebhookWorld({ WEBHOOK_RETRY_WINDOW_SECONDS: 2 });
    ({ api, bots } = world);
    endpoint = await world.receiver();
  });
  afterAll(() => world.close());

  it('are given up after the retry window, shown as failed, let later events go, and can be retried', async () => {
    let down = true;
    endpoint.respond = () => (down ? 503 : 200);
    const user = await api.createUser();
    await api.request('PUT', '/user/webhook', { key: user.key, json: { webhook_url: endpoint.url } });
    const { meetingId, sessionId } = await bots.startMeeting(user, 'giv-enup-now');

    const failed = async () =>
      (await api.request('GET', '/user/webhook/deliveries?status=failed', { key: user.key })).body.deliveries;
    await expect.poll(async () => (await failed()).length, { timeout: 15_000 }).toBe(1);
    const [given] = await failed();
    expect(given).toMatchObject({
      type: 'meeting.status_changed',
      meeting_id: meetingId,
      status: 'failed',
      last_status_code: 503,
      // Status only: the receiver's body is not the user's to read (see sender.ts).
      last_error: 'HTTP 503',
      delivered_at: null,
    });
    expect(given.attempts).toBeGreaterThanOrEqual(3);
    expect(given.failed_at).not.toBeNull();
    const attempts = endpoint.received.length;
    expect(attempts).toBe(given.attempts);

    // The next event of the meeting is not stuck behind the failed one.
    down = false;
    await bots.event(meetingId, sessionId, 'joining');
    await expect
      .poll(() => endpoint.accepted().map((r) => r.json.data.status), { timeout: 10_000 })
      .toEqual(['joining']);

    // A manual retry sends the failed one again, same id and body.
    const retried = await api.request('POST', `/user/webhook/deliveries/${given.id}/retry`, {
      key: user.key,
    });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: given.id, status: 'pending' });
    await expect
      .poll(() => endpoint.accepted().map((r) => r.json.id), { timeout: 10_000 })
      .toContain(given.id);
    expect(endpoint.accepted().find((r) => r.json.id === given.id)!.body).toBe(endpoint.received[0]!.body);
    const again = await api.request('POST', `/user/webhook/deliveries/${given.id}/retry`, { key: user.key });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'Only a failed delivery can be retried' });
  });
});

describe('the worker checks the address again when it connects', () => {
  let world: WebhookWorld;
  let api: TestApi;
  let bots: FakeBots;
  let endpoint: WebhookReceiver;

  beforeAll(async () => {
    world = await startWebhookWorld({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: false });
    ({ api, bots } = world);
    endpoint = await world.receiver();
  });
  afterAll(() => world.close());

  it('refuses a name that resolves to a loopback address without sending anything', async () => {
    const user = await api.createUser();
    const byName = endpoint.url.replace('127.0.0.1', 'localhost');
    await api.request('PUT', '/user/webhook', { key: user.key, json: { webhook_url: byName } });
    const { meetingId } = await bots.startMeeting(user, 'reb-indi-ngx');
    await expect
      .poll(
        async () =>
          (await api.request('GET', `/user/webhook/deliveries?meeting_id=${meetingId}`, { key: user.key }))
            .body.deliveries[0]?.status,
        { timeout: 10_000 },
      )
      .toBe('failed');
    const [delivery] = (await api.request('GET', '/user/webhook/deliveries', { key: user.key })).body
      .deliveries;
    expect(delivery.attempts).toBe(1);
    expect(delivery.last_error).toContain('private, loopback or link-local');
    expect(endpoint.received).toEqual([]);
  });
});
