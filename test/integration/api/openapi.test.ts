import { readFileSync } from 'node:fs';
import type { Router } from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentedRoutes } from '../../../api/openapi/documented-routes.js';
import { adminAuth, documentedPath } from '../../../api/routes/route.js';
import { ADMIN_KEY, startTestApi, type TestApi } from '../../support/api.js';

const COMMITTED = readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');
/** The docs router's own routes (the document and the page that shows it) and the web app's page and assets. */
const UNDOCUMENTED = [
  'GET /docs',
  'GET /docs/assets/{file}',
  'GET /docs/init.js',
  'GET /openapi.json',
  'GET /app',
  'GET /app/assets/{file}',
];

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** `METHOD /path/{param}` of every route on the app's routers (HEAD comes with GET). */
function registeredRoutes(): string[] {
  return api.app.middleware
    .flatMap((middleware) => (middleware as { router?: Router }).router?.stack ?? [])
    .flatMap((layer) =>
      layer.methods
        .filter((method) => method !== 'HEAD')
        .map((method) => `${method} ${documentedPath(String(layer.path))}`),
    );
}

describe('GET /openapi.json', () => {
  it('serves the committed document byte for byte (default limits, no PUBLIC_BASE_URL)', async () => {
    const served = await api.request('GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(served.text).toBe(JSON.stringify(JSON.parse(COMMITTED)));
  });

  it('documents every route the app serves, and only those', async () => {
    const document = (await api.request('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = registeredRoutes();
    expect(registered).toEqual(expect.arrayContaining(UNDOCUMENTED));
    expect(new Set(registered).size).toBe(registered.length);
    expect(registered.filter((route) => !UNDOCUMENTED.includes(route)).sort()).toEqual(documented.sort());
  });

  it('states the deployment’s own limits and address', async () => {
    const custom = await startTestApi({
      replicaOf: api,
      env: {
        PUBLIC_BASE_URL: 'https://meetbot.example.com/api',
        LIST_DEFAULT_LIMIT: '25',
        LIST_MAX_LIMIT: '50',
        MEETING_DATA_MAX_BYTES: '4096',
        LIVE_STREAMS_PER_USER: '3',
      },
    });
    try {
      const document = (await custom.request('GET', '/openapi.json')).body;
      expect(document.servers).toEqual([{ url: 'https://meetbot.example.com/api' }]);
      expect(document.paths['/meetings'].get.parameters[0].schema).toMatchObject({
        default: 25,
        maximum: 50,
      });
      expect(document.paths['/admin/users'].get.parameters[1].schema).toMatchObject({
        default: 25,
        maximum: 50,
      });
      expect(
        document.paths['/meetings/{platform}/{native_meeting_id}'].patch.responses[413].description,
      ).toMatch(/more than 4096 bytes/);
      expect(
        document.paths['/transcripts/{platform}/{native_meeting_id}/stream'].get.responses[429].description,
      ).toMatch(/^3 live streams/);
      // The same limits the routes enforce.
      const user = await custom.createUser();
      const tooLong = await custom.request('GET', '/meetings?limit=51', { key: user.key });
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.error).toBe('limit: must be at most 50');
    } finally {
      await custom.close();
    }
  });

  it('documents the 400 of every route that validates its input, and the route answers it', async () => {
    const document = (await api.request('GET', '/openapi.json')).body;
    const user = await api.createUser();
    const validating = documentedRoutes.filter((route) => route.params || route.body || route.query);
    expect(validating.length).toBeGreaterThan(20);
    for (const route of validating) {
      // A NUL character is refused in any input before its schema runs: the first input validated fails.
      const path = route.path.replace(/:[A-Za-z0-9_]+/g, '%00');
      const response = await api.request(route.method.toUpperCase(), route.params ? path : `${path}?x=%00`, {
        ...(route.auth === adminAuth ? { adminKey: ADMIN_KEY } : { key: user.key }),
        ...(route.body && { json: route.params ? {} : { x: '\u0000' } }),
      });
      const name = `${route.method} ${route.path}`;
      expect({ name, status: response.status, error: response.body?.error }).toEqual({
        name,
        status: 400,
        error: expect.stringContaining('must not contain NUL'),
      });
      expect(document.paths[documentedPath(route.path)][route.method].responses[400], name).toBeDefined();
    }
  });
});
