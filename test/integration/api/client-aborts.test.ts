import { connect } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';

// A client that drops its connection halfway through a body is the client's doing: anyone can do
// it at will, so it must never become an error-level line (nor a 503, as if the database had gone).
interface LogLine {
  level: number;
  msg: string;
  status?: number;
  path?: string;
  requestId?: string;
}

const WARN = 40;
const logs: LogLine[] = [];
let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => logs.push(JSON.parse(line) as LogLine) },
  );
  api = await startTestApi({ logger });
  user = await api.createUser();
});
afterAll(() => api?.close());

/** Sends the headers and part of the body a Content-Length promises, then resets the connection. */
function dropMidBody(path: string, headers: Record<string, string>): Promise<void> {
  const { hostname, port } = new URL(api.baseUrl);
  const head = Object.entries({
    Host: 'x',
    'Content-Type': 'application/json',
    'Content-Length': '1000',
    ...headers,
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n{"platform": "google_me`);
      // Long enough for the API to be reading the body when the connection goes.
      setTimeout(() => socket.resetAndDestroy(), 200);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve());
  });
}

describe('a client that drops mid-body', () => {
  it('is logged below warn as the client closing the request (499), never as an error or a 503', async () => {
    const before = logs.length;
    await dropMidBody('/bots', { 'X-API-Key': user.key, 'X-Request-Id': 'dropped-mid-body' });
    await expect
      .poll(() => logs.find((line) => line.requestId === 'dropped-mid-body' && line.msg === 'request'), {
        timeout: 5000,
      })
      .toMatchObject({ status: 499, path: '/bots' });
    const lines = logs.slice(before).filter((line) => line.requestId === 'dropped-mid-body');
    expect(lines.map((line) => line.msg)).toEqual(['client closed the connection mid-body', 'request']);
    expect(lines.every((line) => line.level < WARN)).toBe(true);
    expect(logs.slice(before).filter((line) => line.level >= WARN)).toEqual([]);
    // The API is as it was.
    expect((await api.request('GET', '/meetings', { key: user.key })).status).toBe(200);
  });

  it('ending its side cleanly before the body is complete is the same', async () => {
    const before = logs.length;
    const { hostname, port } = new URL(api.baseUrl);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () =>
        socket.end(
          'PUT /user/webhook HTTP/1.1\r\nHost: x\r\nX-Request-Id: ended-mid-body\r\n' +
            `X-API-Key: ${user.key}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"webhook_url"`,
        ),
      );
      socket.on('error', reject);
      socket.on('close', () => resolve());
      socket.resume();
    });
    await expect
      .poll(() => logs.find((line) => line.requestId === 'ended-mid-body' && line.msg === 'request'), {
        timeout: 5000,
      })
      .toMatchObject({ status: 499 });
    expect(logs.slice(before).filter((line) => line.level >= WARN)).toEqual([]);
  });
});
