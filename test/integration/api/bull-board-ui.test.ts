import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestApi, type TestApi } from '../../support/api.js';

// Bull Board's UI translates every label from a JSON file it fetches after the page loads; when
// that fetch fails the board shows raw keys (MENU.QUEUES, QUEUE.STATUS.ALL, DASHBOARD.JOBS_COUNT).
// These tests follow the page the way the browser does: the <base href> it renders, the script it
// names, the locale path that script builds, then that exact URL.

let api: TestApi;
const basic = `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`;

beforeAll(async () => {
  // The real auth-failure limit: a browser's first, credential-less requests must not lock it out.
  api = await startTestApi({ rateLimited: true });
});
afterAll(() => api.close());

async function get(path: string, headers: Record<string, string> = { Authorization: basic }) {
  const response = await fetch(new URL(path, api.baseUrl), { headers });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The page, the base path it tells the browser, and the locale URL its main script would request. */
async function localeUrlOfPage(language: string): Promise<string> {
  const page = await get('/admin/queues');
  expect(page.status).toBe(200);
  const base = /<base href="([^"]+)"/.exec(page.text)?.[1];
  expect(base).toBe('/admin/queues/');
  const mainScript = /<script defer src="(static\/js\/main\.[^"]+\.js)"/.exec(page.text)?.[1];
  expect(mainScript).toBeDefined();
  const script = await get(`${base}${mainScript}`);
  expect(script.status).toBe(200);
  // i18next's backend: loadPath `${basePath}static/locales/{{lng}}/{{ns}}.json`, queryParams {v: version}
  const loadPath =
    /loadPath:`\$\{\w+\}(static\/locales\/\{\{lng\}\}\/\{\{ns\}\}\.json)`,queryParams:\{v:"([^"]+)"\}/.exec(
      script.text,
    );
  expect(loadPath, 'the UI script no longer builds its locale URL the way this test expects').not.toBeNull();
  const [, template, version] = loadPath as RegExpExecArray;
  return `${base}${template?.replace('{{lng}}', language).replace('{{ns}}', 'messages')}?v=${version}`;
}

describe('Bull Board UI translations', () => {
  it('serves the en-US messages at the URL the UI requests, with the real labels', async () => {
    const url = await localeUrlOfPage('en-US');
    expect(url).toMatch(/^\/admin\/queues\/static\/locales\/en-US\/messages\.json\?v=/);
    const locale = await get(url);
    expect(locale.status).toBe(200);
    expect(locale.type).toMatch(/json/);
    const messages = JSON.parse(locale.text);
    expect(messages.MENU.QUEUES).toBe('QUEUES');
    expect(messages.MENU.OVERVIEW).toBe('Overview');
    expect(messages.QUEUE.STATUS.ALL).toBe('All');
    expect(messages.DASHBOARD.JOBS_COUNT).toBe('{{count}} Jobs');
  });

  it('serves the other bundled languages too', async () => {
    const locale = await get(await localeUrlOfPage('de-DE'));
    expect(locale.status).toBe(200);
    expect(JSON.parse(locale.text).MENU.OVERVIEW).toEqual(expect.any(String));
  });

  it('asks for the admin key on the locale file like on the page (a browser retries with it)', async () => {
    const url = await localeUrlOfPage('en-US');
    const anonymous = await fetch(new URL(url, api.baseUrl));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
  });
});
