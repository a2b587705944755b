import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { FakeBots } from '../../support/fake-bot.js';
import {
  type Frame,
  type LiveSocketClient,
  openLiveSocket,
  segmentTexts,
  socketUrl,
  transcriptFromFrames,
} from '../../support/live-socket.js';
import { openSse } from '../../support/sse.js';

const REPO_ROOT = new URL('../../../', import.meta.url).pathname;

let api: TestApi;
let user: TestUser;
let bots: FakeBots;
let child: ChildProcess | undefined;
let output = '';
let exited: Promise<number | null>;
let baseUrl: string;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** The API as deployed: its own process (api/main.ts), on the test API's database, Redis and prefix. */
async function startApiProcess(): Promise<void> {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/root',
      DATABASE_URL: api.database.url,
      REDIS_URL: api.config.REDIS_URL,
      QUEUE_PREFIX: api.prefix,
      API_HOST: '127.0.0.1',
      API_PORT: String(port),
      RECORDING_DIR: api.config.RECORDING_DIR,
      RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const append = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-100_000);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const process_ = child;
  exited = new Promise((resolve) => process_.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (process_.exitCode !== null) throw new Error(`the API process exited at start-up:\n${output}`);
    const healthy = await fetch(`${baseUrl}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    if (Date.now() > deadline) throw new Error(`the API process never answered:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser({ maxConcurrentBots: 10 });
  bots = new FakeBots(api);
  await startApiProcess();
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  await bots.close();
  await api.close();
});

const dataFrames = (frames: Frame[]) =>
  frames.filter((frame) => ['transcript.mutable', 'meeting.status', 'chat_message'].includes(frame.type));

describe('/ws on an API process of its own', () => {
  it('hears changes another process commits, and closes its sockets with 1001 on a graceful shutdown', async () => {
    const { meetingId, sessionId } = await bots.startMeeting(user, 'pro-cess-wsx');
    await bots.event(meetingId, sessionId, 'active');
    const socket: LiveSocketClient = await openLiveSocket(socketUrl(baseUrl), {
      headers: { Authorization: `Bearer ${user.key}` },
    });
    socket.send({ action: 'subscribe', meetings: [{ platform: 'google_meet', native_id: 'pro-cess-wsx' }] });
    await socket.next((frame) => frame.type === 'subscribed');
    const sse = await openSse(`${baseUrl}/transcripts/google_meet/pro-cess-wsx/stream`, {
      'X-API-Key': user.key,
    });
    expect(sse.status).toBe(200);

    // The worker's ingester (in this test process) commits and announces; the API process hears it.
    await bots.segment(meetingId, sessionId, { id: 'one', start: 1, text: 'heard across processes' });
    await socket.waitFor((frames) => segmentTexts(frames).includes('heard across processes'));
    await sse.waitFor((events) => events.some((event) => event.data.text === 'heard across processes'));

    child!.kill('SIGTERM');
    expect(await socket.closed).toEqual({
      code: 1001,
      reason: 'Server shutting down; reconnect with your cursors',
    });
    // The SSE stream ends too (its client reconnects with Last-Event-ID), without an `end` event.
    await sse.ended;
    expect(sse.events.some((event) => event.event === 'end')).toBe(false);
    // A clean exit, not the force-quit of a shutdown that hung on open connections.
    expect(await exited).toBe(0);
    expect(output).not.toMatch(/shutdown timed out/);

    // Meanwhile more was said; another replica resumes from the last cursor.
    await bots.segment(meetingId, sessionId, { id: 'two', start: 2, text: 'said during the restart' });
    const cursor = dataFrames(socket.frames).at(-1)!.cursor as string;
    const resumed = await openLiveSocket(socketUrl(api.baseUrl), { headers: { 'X-API-Key': user.key } });
    try {
      resumed.send({ action: 'subscribe', meetings: [{ meeting_id: meetingId, cursor }] });
      await resumed.waitFor((frames) => segmentTexts(frames).includes('said during the restart'));
      await resumed.roundTrip();
      expect(segmentTexts(resumed.frames)).toEqual(['said during the restart']);
      const rest = await api.request('GET', '/transcripts/google_meet/pro-cess-wsx', { key: user.key });
      expect(transcriptFromFrames([...socket.frames, ...resumed.frames], meetingId)).toEqual(
        rest.body.segments,
      );
    } finally {
      resumed.close();
    }
  });
});
