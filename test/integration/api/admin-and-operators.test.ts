import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, MEETING_FIELDS, startTestApi, type TestApi } from '../../support/api.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const admin = { adminKey: ADMIN_KEY };

describe('admin API (Vexa-shaped)', () => {
  it('refuses a missing or wrong admin key, and user keys', async () => {
    const user = await api.createUser();
    for (const options of [{}, { adminKey: 'wrong-key-wrong-key' }, { key: user.key }]) {
      const response = await api.request('GET', '/admin/users', options);
      expect(response.status).toBe(403);
      expect(Object.keys(response.body)).toEqual(['error']);
    }
  });

  it('finds or creates a user by email, issues a key once, and the key works', async () => {
    const created = await api.request('POST', '/admin/users', {
      ...admin,
      json: { email: 'Dana@Example.com', name: 'Dana', max_concurrent_bots: 4 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      email: 'Dana@Example.com',
      name: 'Dana',
      max_concurrent_bots: 4,
      data: {},
      image_url: null,
    });
    const again = await api.request('POST', '/admin/users', {
      ...admin,
      json: { email: 'dana@example.com' },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);

    const token = await api.request('POST', `/admin/users/${created.body.id}/tokens?name=laptop`, admin);
    expect(token.status).toBe(201);
    expect(token.body).toMatchObject({ user_id: created.body.id, name: 'laptop', revoked_at: null });
    expect(token.body.token).toMatch(/^mb_/);
    expect(token.body.token.startsWith(token.body.prefix)).toBe(true);

    expect((await api.request('GET', '/meetings', { key: token.body.token })).status).toBe(200);

    const detail = await api.request('GET', `/admin/users/${created.body.id}`, admin);
    expect(detail.body.api_tokens).toHaveLength(1);
    expect(JSON.stringify(detail.body)).not.toContain(token.body.token);

    const revoked = await api.request('DELETE', `/admin/tokens/${token.body.id}`, admin);
    expect(revoked.status).toBe(204);
    expect((await api.request('GET', '/meetings', { key: token.body.token })).status).toBe(401);
    expect((await api.request('DELETE', '/admin/tokens/999999', admin)).status).toBe(404);
  });

  it('issues a key with a JSON body name too', async () => {
    const created = await api.request('POST', '/admin/users', {
      ...admin,
      json: { email: 'eve@example.com' },
    });
    const token = await api.request('POST', `/admin/users/${created.body.id}/tokens`, {
      ...admin,
      json: { name: 'ci' },
    });
    expect(token.status).toBe(201);
    expect(token.body.name).toBe('ci');
    const missing = await api.request('POST', '/admin/users/999999/tokens', admin);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'User not found' });
  });

  it('gets users by email, lists them with skip/limit, and patches them', async () => {
    const created = await api.request('POST', '/admin/users', {
      ...admin,
      json: { email: 'finn@example.com' },
    });
    expect(created.body.max_concurrent_bots).toBe(api.config.DEFAULT_MAX_CONCURRENT_BOTS);
    const byEmail = await api.request('GET', '/admin/users/email/finn@example.com', admin);
    expect(byEmail.body.id).toBe(created.body.id);
    expect((await api.request('GET', '/admin/users/email/nobody@example.com', admin)).status).toBe(404);

    const patched = await api.request('PATCH', `/admin/users/${created.body.id}`, {
      ...admin,
      json: { name: 'Finn', max_concurrent_bots: 9, data: { plan: 'pro' } },
    });
    expect(patched.body).toMatchObject({ name: 'Finn', max_concurrent_bots: 9, data: { plan: 'pro' } });
    const changeEmail = await api.request('PATCH', `/admin/users/${created.body.id}`, {
      ...admin,
      json: { email: 'other@example.com' },
    });
    expect(changeEmail.status).toBe(400);
    const badType = await api.request('PATCH', `/admin/users/${created.body.id}`, {
      ...admin,
      json: { max_concurrent_bots: 'many' },
    });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toMatch(/^max_concurrent_bots: /);

    const all = await api.request('GET', '/admin/users?skip=0&limit=1000', admin);
    expect(all.body.map((u: { email: string }) => u.email)).toContain('finn@example.com');
    const one = await api.request('GET', '/admin/users?skip=1&limit=1', admin);
    expect(one.body).toHaveLength(1);
    expect(one.body[0].id).toBe(all.body[1].id);
  });

  it('rejects a bad email with 400 naming the field', async () => {
    const response = await api.request('POST', '/admin/users', { ...admin, json: { email: 'not-an-email' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^email: /);
  });
});

describe('admin API with Basic auth (the credentials a browser keeps after opening Bull Board)', () => {
  const basic = { Authorization: `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}` };

  it("refuses a cross-site POST and takes the same request from a script or this service's own pages", async () => {
    const json = { email: 'cross-site-basic@example.com' };
    for (const crossSite of <Record<string, string>[]>[
      { Origin: 'https://attacker.example' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site', Origin: 'https://other.example' },
    ]) {
      const refused = await api.request('POST', '/admin/users', {
        headers: { ...basic, ...crossSite },
        json,
      });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: expect.stringMatching(/^Cross-site request refused/) });
    }
    // Nothing was created by the refused requests: the first accepted one creates the user.
    const fromScript = await api.request('POST', '/admin/users', { headers: basic, json });
    expect(fromScript.status).toBe(201);
    const fromOwnPage = await api.request('POST', '/admin/users', {
      headers: { ...basic, Origin: api.baseUrl, 'Sec-Fetch-Site': 'same-origin' },
      json,
    });
    expect(fromOwnPage.status).toBe(200);
    expect(fromOwnPage.body.id).toBe(fromScript.body.id);
  });

  it('leaves reads and the X-Admin-API-Key header alone (a page on another site cannot add that header)', async () => {
    const read = await api.request('GET', '/admin/users', {
      headers: { ...basic, Origin: 'https://attacker.example' },
    });
    expect(read.status).toBe(200);
    const byHeader = await api.request('POST', '/admin/users', {
      ...admin,
      headers: { Origin: 'https://elsewhere.example' },
      json: { email: 'header-key-cross-origin@example.com' },
    });
    expect(byHeader.status).toBe(201);
  });
});

describe('operator endpoints', () => {
  it('/healthz and /readyz answer without a key', async () => {
    expect((await api.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await api.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('Bull Board asks a browser for the admin key and opens with it', async () => {
    const anonymous = await fetch(`${api.baseUrl}/admin/queues`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
    const basic = Buffer.from(`admin:${ADMIN_KEY}`).toString('base64');
    const page = await fetch(`${api.baseUrl}/admin/queues`, { headers: { Authorization: `Basic ${basic}` } });
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<html/i);
    const queues = await fetch(`${api.baseUrl}/admin/queues/api/queues`, {
      headers: { Authorization: `Basic ${basic}` },
    });
    expect(queues.status).toBe(200);
    const body = (await queues.json()) as { queues: Array<{ name: string }> };
    expect(body.queues.map((queue) => queue.name).sort()).toEqual(['bot-control', 'bot-launches']);
  });

  it('serves an OpenAPI 3.1 document for every endpoint and a docs page', async () => {
    const document = await api.request('GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toBe('3.1.0');
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([
        '/bots',
        '/bots/status',
        '/bots/{platform}/{native_meeting_id}',
        '/bots/{platform}/{native_meeting_id}/config',
        '/meetings',
        '/meetings/{id}',
        '/meetings/{id}/events',
        '/meetings/{platform}/{native_meeting_id}',
        '/transcripts/{platform}/{native_meeting_id}',
        '/transcripts/{platform}/{native_meeting_id}/stream',
        '/user/webhook',
        '/user/webhook/rotate-secret',
        '/user/webhook/test',
        '/user/webhook/deliveries',
        '/user/webhook/deliveries/{id}/retry',
        '/admin/users/{id}/webhook',
      ]),
    );
    const meeting = document.body.components.schemas.Meeting;
    expect(Object.keys(meeting.properties).sort()).toEqual([...MEETING_FIELDS].sort());
    expect(Object.keys(document.body.components.schemas.CreateBotRequest.properties)).toEqual(
      expect.arrayContaining(['webhook_url', 'webhook_secret', 'webhook_partial_segments']),
    );
    expect(document.body.components.schemas.CreateBotRequest.properties.platform.enum).toEqual([
      'google_meet',
      'teams',
      'zoom',
    ]);
    // The limits as this deployment has them (LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT, ...).
    const meetingsLimit = document.body.paths['/meetings'].get.parameters[0];
    expect(meetingsLimit).toMatchObject({ name: 'limit', schema: { default: 100, maximum: 1000 } });
    expect(
      document.body.paths['/meetings/{platform}/{native_meeting_id}'].patch.responses[413],
    ).toBeDefined();
    expect(document.body.paths['/meetings'].get.responses[429].description).toMatch(/Rate limit exceeded/);
    const docs = await fetch(`${api.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('/docs/assets/swagger-ui-bundle.js');
    const bundle = await fetch(`${api.baseUrl}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
  });
});
