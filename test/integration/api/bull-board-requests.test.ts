import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAUNCH_QUEUE } from '../../../shared/contract/jobs.js';
import { ADMIN_KEY, startTestApi, type TestApi } from '../../support/api.js';

// A browser that opened Bull Board keeps the operator's Basic credentials and sends them with any
// request to the board, including a form another site posts. The board must take its
// state-changing requests only from its own pages, and answer errors like the rest of the API.

const basic = `Basic ${Buffer.from(`admin:${ADMIN_KEY}`).toString('base64')}`;
const PUBLIC_BASE_URL = 'https://meetbot.example.org/api';
let api: TestApi;
let proxied: TestApi;

beforeAll(async () => {
  api = await startTestApi({ env: { PUBLIC_BASE_URL } });
  proxied = await startTestApi({ env: { TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await api?.close();
  await proxied?.close();
});

/** Adds a job through the board's own API, as its "Add job" dialog does (or a forged form would). */
async function addJob(target: TestApi, headers: Record<string, string>, name = 'board-probe') {
  const response = await fetch(`${target.baseUrl}/admin/queues/api/queues/${LAUNCH_QUEUE}/add`, {
    method: 'POST',
    headers: { Authorization: basic, ...headers },
    body: headers['Content-Type']?.startsWith('application/x-www-form-urlencoded')
      ? `name=${name}&data=x`
      : JSON.stringify({ name, data: { probe: true } }),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

async function jobsNamed(target: TestApi, name: string): Promise<number> {
  const jobs = await target.queues.launch.getJobs(['waiting', 'delayed', 'prioritized']);
  return jobs.filter((job) => job.name === name).length;
}

describe('Bull Board refuses cross-site requests that change something', () => {
  it('refuses a cross-site form post (Sec-Fetch-Site and Origin of another site) and adds nothing', async () => {
    const forged = await addJob(api, {
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: 'https://evil.example',
      'Sec-Fetch-Site': 'cross-site',
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({ error: expect.stringMatching(/cross-site/i) });
    expect(await jobsNamed(api, 'board-probe')).toBe(0);
  });

  it('refuses a foreign Origin, an opaque Origin (null) and a same-site sibling', async () => {
    const foreign: Record<string, string>[] = [
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'same-site', Origin: 'https://other.meetbot.example.org' },
      { Origin: `${api.baseUrl}.evil.example` },
    ];
    for (const headers of foreign) {
      const forged = await addJob(api, { 'Content-Type': 'application/json', ...headers }, 'forged');
      expect(forged.status, JSON.stringify(headers)).toBe(403);
      expect(Object.keys(forged.body)).toEqual(['error']);
    }
    expect(await jobsNamed(api, 'forged')).toBe(0);
  });

  it("takes the board's own requests: same origin, the public address, or no browser headers", async () => {
    const own = await addJob(api, {
      'Content-Type': 'application/json',
      Origin: api.baseUrl,
      'Sec-Fetch-Site': 'same-origin',
    });
    expect(own.status).toBe(200);
    const viaPublicAddress = await addJob(api, {
      'Content-Type': 'application/json',
      Origin: new URL(PUBLIC_BASE_URL).origin,
    });
    expect(viaPublicAddress.status).toBe(200);
    const script = await addJob(api, { 'Content-Type': 'application/json' });
    expect(script.status).toBe(200);
    expect(await jobsNamed(api, 'board-probe')).toBe(3);
  });

  it('behind a trusted proxy, takes the origin the proxy forwarded', async () => {
    const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'queues.example.net' };
    const own = await addJob(proxied, {
      'Content-Type': 'application/json',
      ...forwarded,
      Origin: 'https://queues.example.net',
    });
    expect(own.status).toBe(200);
    const forged = await addJob(proxied, {
      'Content-Type': 'application/json',
      ...forwarded,
      Origin: proxied.baseUrl,
    });
    expect(forged.status).toBe(403);
  });

  it('still serves reads to any page (the UI loads them itself; nothing changes)', async () => {
    const response = await fetch(`${api.baseUrl}/admin/queues/api/queues`, {
      headers: { Authorization: basic, 'Sec-Fetch-Site': 'cross-site' },
    });
    expect(response.status).toBe(200);
  });
});

describe("Bull Board's errors", () => {
  it('answers {"error": "..."} in words, not its UI translation keys', async () => {
    const response = await fetch(`${api.baseUrl}/admin/queues/api/queues/no-such-queue/add`, {
      method: 'POST',
      headers: { Authorization: basic, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'x', data: {} }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Queue not found' });
  });

  it('fills in the details its messages name', async () => {
    const waiting = await api.queues.launch.add('board-waiting', {});
    const response = await fetch(
      `${api.baseUrl}/admin/queues/api/queues/${LAUNCH_QUEUE}/${waiting.id}/retry`,
      { method: 'PUT', headers: { Authorization: basic } },
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'Job is in "waiting" state and cannot be retried' });
  });
});
