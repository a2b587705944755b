import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../../support/api.js';

const COMMITTED = readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('GET /openapi.json', () => {
  it('serves the committed document byte for byte (default limits, no PUBLIC_BASE_URL)', async () => {
    const served = await api.request('GET', '/openapi.json');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(served.text).toBe(JSON.stringify(JSON.parse(COMMITTED)));
  });
});
