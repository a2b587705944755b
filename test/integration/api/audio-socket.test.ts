import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { RedisAudioOut } from '../../../bot/audio/audio-out.js';
import { AUDIO_CLOSE } from '../../../api/ws/audio-consumer.js';
import {
  AUDIO_STREAM_MAXLEN,
  AUDIO_WANTED_TTL_MS,
  audioStreamFields,
  botAudioStream,
  botAudioWantedKey,
} from '../../../shared/contract/audio-stream.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { type AudioSocketClient, audioSocketUrl, openAudioSocket } from '../../support/audio-socket.js';
import { FakeBots } from '../../support/fake-bot.js';
import { createTestRedis } from '../../support/redis.js';

/**
 * The audio WebSocket against a real API, Postgres and Redis: the "bot" is the bot's own audio
 * publisher (bot/audio/audio-out.ts) on the stream a launched bot would write, publishing while the
 * wanted key the socket sets says someone listens, the meeting made active by the real ingester
 * (FakeBots).
 */
const PER_USER = 2;
const SEND_LIMIT = 64 * 1024;
/** How often an open socket sets its bot's wanted key again (AUDIO_WANTED_REFRESH_MS in production). */
const REFRESH_MS = 300;
const lines: string[] = [];
let api: TestApi;
let ann: TestUser;
let bob: TestUser;
let bots: FakeBots;
let redis: Redis;
let active: { meetingId: number; sessionId: string };
const sockets: AudioSocketClient[] = [];

beforeAll(async () => {
  api = await startTestApi({
    env: { AUDIO_SOCKETS_PER_USER: String(PER_USER), WS_PING_INTERVAL_SECONDS: '5' },
    audioSockets: { sendLimitBytes: SEND_LIMIT, authTimeoutMs: 1000, wantedRefreshMs: REFRESH_MS },
    logger: pino({ level: 'trace' }, { write: (line: string) => lines.push(line) }),
  });
  ann = await api.createUser({ maxConcurrentBots: 20 });
  bob = await api.createUser({ maxConcurrentBots: 20 });
  bots = new FakeBots(api);
  redis = createTestRedis();
  active = await bots.startMeeting(ann, 'aud-ioso-ckt');
  await bots.event(active.meetingId, active.sessionId, 'active');
  await untilActive(active.meetingId);
}, 60_000);
// Every test leaves the user's socket count as it found it (a place is freed once the API saw the close).
afterEach(async () => {
  const open = sockets.splice(0);
  for (const socket of open) socket.close();
  await Promise.all(open.map((socket) => socket.closed));
  await new Promise((resolve) => setTimeout(resolve, 200));
});
afterAll(async () => {
  redis?.disconnect();
  await bots?.close();
  await api?.close();
});

/** The ingester commits the bot's `active` in the background. */
async function untilActive(meetingId: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await api.request('GET', `/meetings/${meetingId}`, { key: ann.key })).body.status !== 'active') {
    if (Date.now() > deadline) throw new Error(`meeting ${meetingId} never became active`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function open(
  meetingId: number | string,
  options: { headers?: Record<string, string>; query?: string } = {},
): Promise<AudioSocketClient> {
  const socket = await openAudioSocket(audioSocketUrl(api.baseUrl, meetingId, options.query), options);
  sockets.push(socket);
  return socket;
}

const key = (user: TestUser) => ({ headers: { 'X-API-Key': user.key } });

async function ready(socket: AudioSocketClient): Promise<void> {
  await socket.waitFor(() => socket.control.some((frame) => frame.type === 'ready'));
}

/** The bot's publisher, having asked once whether anyone listens (the first chunk asks, without waiting). */
async function publisher(sessionId: string): Promise<RedisAudioOut> {
  const out = new RedisAudioOut(
    redis,
    { stream: botAudioStream(api.prefix, sessionId), wanted: botAudioWantedKey(api.prefix, sessionId) },
    createLogger('test-bot', 'silent'),
  );
  await out.checkListeners();
  return out;
}

const speech = (capturedAtMs = Date.now()) => ({
  start: 5,
  end: 5.2,
  startWallMs: 0,
  capturedAtMs,
  speaker: null,
});

/** A chunk whose samples all hold `value` (so the client can tell chunks apart). */
function chunk(value: number, samples = 3200): Int16Array {
  return new Int16Array(samples).fill(value);
}

describe('the audio socket', () => {
  it('sends the ready frame, then each chunk the bot publishes: header, speaker, capture times and PCM', async () => {
    const socket = await open(active.meetingId, key(ann));
    await ready(socket);
    expect(socket.control[0]).toEqual({
      type: 'ready',
      meeting_id: active.meetingId,
      format: 's16le',
      sample_rate: 16000,
      channels: 1,
      streams: ['mixed'],
    });
    const out = await publisher(active.sessionId);
    for (let index = 0; index < 5; index += 1) {
      out.publish(
        {
          start: 3 + index * 0.2,
          end: 3.2 + index * 0.2,
          startWallMs: 1_000_000 + index * 200,
          capturedAtMs: Date.now(),
          speaker: index < 3 ? 'Alice Archer' : null,
        },
        chunk(index * 100 - 150),
      );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await socket.waitFor(() => socket.audio.length === 5);
    expect(socket.audio.map((frame) => frame.header.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(socket.audio.map((frame) => frame.header.speaker)).toEqual([
      'Alice Archer',
      'Alice Archer',
      'Alice Archer',
      null,
      null,
    ]);
    expect(socket.audio[1]!.header).toMatchObject({
      type: 'audio',
      stream: 'mixed',
      start: expect.closeTo(3.2, 6),
      end: expect.closeTo(3.4, 6),
      samples: 3200,
      sample_rate: 16000,
      start_wall_ms: 1_000_200,
    });
    for (const frame of socket.audio) {
      expect(frame.header.sent_at_ms).toBeGreaterThanOrEqual(frame.header.captured_at_ms);
      expect(frame.receivedAtMs).toBeGreaterThanOrEqual(frame.header.captured_at_ms);
    }
    expect([...new Set(socket.samples())]).toEqual([-150, -50, 50, 150, 250]);
    // Only live audio: a socket opened now gets none of the chunks before it.
    const late = await open(active.meetingId, key(ann));
    await ready(late);
    out.publish(speech(), chunk(7));
    await late.waitFor(() => late.audio.length === 1);
    expect(late.audio[0]!.header.seq).toBe(5);
    socket.close();
    late.close();
    await Promise.all([socket.closed, late.closed]);
  });

  it('makes the bot publish only while a socket is open: the wanted key, set with its TTL and refreshed', async () => {
    const meeting = await bots.startMeeting(ann, 'aud-iowa-ntd');
    await bots.event(meeting.meetingId, meeting.sessionId, 'active');
    await untilActive(meeting.meetingId);
    const wanted = botAudioWantedKey(api.prefix, meeting.sessionId);
    const stream = botAudioStream(api.prefix, meeting.sessionId);

    // Nobody listens: the bot appends nothing, and counts what it did not send.
    const out = await publisher(meeting.sessionId);
    for (let index = 0; index < 5; index += 1) out.publish(speech(), chunk(1));
    expect(await redis.exists(wanted)).toBe(0);
    expect(await redis.exists(stream)).toBe(0);
    expect(out.stats()).toMatchObject({ published: 0, unheard: 5 });

    // A socket opens: the key is there by `ready`, with its TTL, and kept there while it is open.
    const socket = await open(meeting.meetingId, key(ann));
    await ready(socket);
    expect(await redis.exists(wanted)).toBe(1);
    const ttl = await redis.pttl(wanted);
    expect(ttl).toBeGreaterThan(AUDIO_WANTED_TTL_MS - 5000);
    expect(ttl).toBeLessThanOrEqual(AUDIO_WANTED_TTL_MS);
    await redis.del(wanted);
    await expect.poll(() => redis.exists(wanted), { timeout: 5000, interval: 50 }).toBe(1);
    await redis.pexpire(wanted, 5 * AUDIO_WANTED_TTL_MS);
    await expect
      .poll(() => redis.pttl(wanted), { timeout: 5000, interval: 50 })
      .toBeLessThanOrEqual(AUDIO_WANTED_TTL_MS);

    // The bot's next check finds it: its chunks flow, numbered after the unheard ones.
    await out.checkListeners();
    out.publish(speech(), chunk(2));
    await socket.waitFor(() => socket.audio.length === 1);
    expect(socket.audio[0]!.header.seq).toBe(5);
    expect(out.stats()).toMatchObject({ published: 1, unheard: 5 });

    // Closed: the key is no longer refreshed (nor deleted: another socket may listen); it expires.
    socket.close();
    await socket.closed;
    await new Promise((resolve) => setTimeout(resolve, 200));
    await redis.pexpire(wanted, 10 * REFRESH_MS);
    await new Promise((resolve) => setTimeout(resolve, 3 * REFRESH_MS));
    const left = await redis.pttl(wanted);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(7 * REFRESH_MS);
    await expect.poll(() => redis.exists(wanted), { timeout: 20 * REFRESH_MS }).toBe(0);
    await out.checkListeners();
    out.publish(speech(), chunk(3));
    expect(out.stats()).toMatchObject({ published: 1, unheard: 6 });
  });

  it("tells a relaunched bot someone listens, on the new session's key, and reads its new stream", async () => {
    const meeting = await bots.startMeeting(ann, 'aud-iore-lnc');
    await bots.event(meeting.meetingId, meeting.sessionId, 'active');
    await untilActive(meeting.meetingId);
    const socket = await open(meeting.meetingId, key(ann));
    await ready(socket);
    expect(await redis.exists(botAudioWantedKey(api.prefix, meeting.sessionId))).toBe(1);

    // The meeting's bot is relaunched (after a lost host): a new session, still active.
    const relaunched = `${meeting.sessionId}-relaunched`;
    await api.database
      .db('meetings')
      .where({ id: meeting.meetingId })
      .update({ launch_session_id: relaunched });
    const wanted = botAudioWantedKey(api.prefix, relaunched);
    await expect.poll(() => redis.exists(wanted), { timeout: 10_000, interval: 100 }).toBe(1);
    expect(await redis.pttl(wanted)).toBeGreaterThan(AUDIO_WANTED_TTL_MS - 5000);
    const out = await publisher(relaunched);
    out.publish(speech(), chunk(4));
    await socket.waitFor(() => socket.audio.length === 1);
    expect([...new Set(socket.samples())]).toEqual([4]);
  });

  it('takes the key as Authorization: Bearer, ?api_key= or a first auth message; answers ping', async () => {
    const bearer = await open(active.meetingId, { headers: { Authorization: `Bearer ${ann.key}` } });
    await ready(bearer);
    bearer.close();
    const query = await open(active.meetingId, { query: `?api_key=${encodeURIComponent(ann.key)}` });
    await ready(query);
    query.close();
    const message = await open(active.meetingId);
    message.send({ action: 'auth', api_key: ann.key });
    await ready(message);
    message.send({ action: 'ping' });
    await message.waitFor(() => message.control.some((frame) => frame.type === 'pong'));
    message.close();
    await Promise.all([bearer.closed, query.closed, message.closed]);
  });

  it('refuses a wrong or missing key with 4401', async () => {
    const wrong = await open(active.meetingId, { headers: { 'X-API-Key': 'mb_not-a-key' } });
    expect(await wrong.closed).toEqual({ code: AUDIO_CLOSE.unauthorized, reason: 'Unauthorized' });
    expect(wrong.control).toEqual([{ type: 'error', error: 'invalid_api_key', details: 'Unauthorized' }]);
    expect(wrong.audio).toEqual([]);

    const wrongMessage = await open(active.meetingId);
    wrongMessage.send({ action: 'auth', api_key: 'mb_wrong' });
    expect((await wrongMessage.closed).code).toBe(AUDIO_CLOSE.unauthorized);

    // Without a key the first message must be `auth`; a socket that sends nothing times out the same way.
    const noAuth = await open(active.meetingId);
    noAuth.send({ action: 'ping' });
    expect((await noAuth.closed).code).toBe(AUDIO_CLOSE.unauthorized);
    expect(noAuth.control[0]).toMatchObject({ error: 'missing_api_key' });
    const silent = await open(active.meetingId);
    expect((await silent.closed).code).toBe(AUDIO_CLOSE.unauthorized);
  });

  it("refuses another user's meeting exactly as one that does not exist", async () => {
    const foreign = await open(active.meetingId, key(bob));
    const missing = await open(2_000_000_000, key(bob));
    const huge = await open('999999999999999', key(bob));
    const answers = await Promise.all([foreign, missing, huge].map((socket) => socket.closed));
    expect(answers).toEqual([
      { code: AUDIO_CLOSE.notFound, reason: 'Meeting not found' },
      { code: AUDIO_CLOSE.notFound, reason: 'Meeting not found' },
      { code: AUDIO_CLOSE.notFound, reason: 'Meeting not found' },
    ]);
    expect(foreign.control).toEqual(missing.control);
    expect(foreign.control).toEqual([
      { type: 'error', error: 'meeting_not_found', details: 'Meeting not found' },
    ]);
  });

  it('says why for a meeting that is not active, and closes with 1000 when the meeting ends', async () => {
    const requested = await api.request('POST', '/bots', {
      key: ann.key,
      json: { platform: 'google_meet', native_meeting_id: 'aud-iono-act', bot_name: 'Bot' },
    });
    const notActive = await open(requested.body.id, key(ann));
    expect(await notActive.closed).toEqual({
      code: AUDIO_CLOSE.notActive,
      reason: 'Meeting is not active (status: requested); audio flows only while its bot is in the call',
    });

    const ending = await bots.startMeeting(ann, 'aud-ioen-dng');
    await bots.event(ending.meetingId, ending.sessionId, 'active');
    await expect
      .poll(
        async () => (await api.request('GET', `/meetings/${ending.meetingId}`, { key: ann.key })).body.status,
      )
      .toBe('active');
    const socket = await open(ending.meetingId, key(ann));
    await ready(socket);
    await bots.event(ending.meetingId, ending.sessionId, 'completed', { reason: 'stopped' });
    expect(await socket.closed).toEqual({ code: 1000, reason: 'Meeting ended (status: completed)' });
  });

  it(`lets one user have at most AUDIO_SOCKETS_PER_USER (${PER_USER}) sockets open, over all their keys`, async () => {
    const first = await open(active.meetingId, key(ann));
    const second = await open(active.meetingId, key(ann));
    await Promise.all([ready(first), ready(second)]);
    const third = await open(active.meetingId, key(ann));
    const refused = await third.closed;
    expect(refused.code).toBe(AUDIO_CLOSE.tooManyRequests);
    expect(refused.reason).toBe(
      `Too many open audio sockets for this user (at most ${PER_USER}); close one first`,
    );
    // Another user is counted apart; a closed socket frees its place.
    first.close();
    await first.closed;
    const again = await open(active.meetingId, key(ann));
    await ready(again);
    second.close();
    again.close();
    await Promise.all([second.closed, again.closed]);
  });

  it('closes on huge, binary or garbage client messages, and serves other paths as plain HTTP', async () => {
    const huge = await open(active.meetingId, key(ann));
    await ready(huge);
    huge.ws.send(Buffer.alloc(64 * 1024, 1));
    expect((await huge.closed).code).toBe(1009);

    const binary = await open(active.meetingId, key(ann));
    await ready(binary);
    binary.ws.send(Buffer.from([0, 1, 2, 3]));
    expect(await binary.closed).toEqual({
      code: AUDIO_CLOSE.policyViolation,
      reason: 'This socket only sends audio; a client sends nothing but {"action":"ping"}',
    });

    const garbage = await open(active.meetingId, key(ann));
    await ready(garbage);
    garbage.send('{"action": "subscribe", "meetings": [1,');
    expect((await garbage.closed).code).toBe(AUDIO_CLOSE.policyViolation);

    const hugeAuth = await open(active.meetingId);
    hugeAuth.send({ action: 'auth', api_key: 'x'.repeat(10_000) });
    expect((await hugeAuth.closed).code).toBe(1009);

    for (const path of ['abc', '0', '-1', '1/audio/x']) {
      await expect(openAudioSocket(audioSocketUrl(api.baseUrl, path), key(ann))).rejects.toThrow(
        /upgrade refused: 40[45]/,
      );
    }
  });

  it('drops a client that does not read with 4000, while the bot side goes on unhindered', async () => {
    const slow = await open(active.meetingId, key(ann));
    await ready(slow);
    const fast = await open(active.meetingId, key(ann));
    await ready(fast);
    const tcp = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    tcp.pause();
    const stream = botAudioStream(api.prefix, active.sessionId);
    const dropped = () => lines.some((line) => line.includes('dropping a slow audio consumer'));
    // Loopback sockets buffer megabytes in the kernel before anything waits in the API.
    let seq = 1000;
    while (!dropped() && seq < 1000 + 20_000) {
      await redis.xadd(
        stream,
        'MAXLEN',
        '~',
        AUDIO_STREAM_MAXLEN,
        '*',
        ...audioStreamFields(
          { seq, start: 0, end: 0.2, startWallMs: 0, capturedAtMs: Date.now(), speaker: null },
          Buffer.alloc(6400),
        ),
      );
      seq += 1;
      if (seq % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(dropped()).toBe(true);
    tcp.resume();
    const closed = await slow.closed;
    expect(closed.code).toBe(AUDIO_CLOSE.slowConsumer);
    expect(closed.reason).toMatch(
      /^Slow consumer: \d+ KiB of audio unsent \(limit 64 KiB\); read faster and reconnect$/,
    );
    // The stream stayed bounded, and the reading client still gets the live audio.
    expect(await redis.xlen(stream)).toBeLessThanOrEqual(AUDIO_STREAM_MAXLEN + 100);
    expect(fast.ws.readyState).toBe(WebSocket.OPEN);
    expect(fast.audio.length).toBeGreaterThan(0);
    fast.close();
  }, 60_000);

  it('logs no API key, whichever way it came', async () => {
    await expect.poll(() => lines.some((line) => line.includes('audio socket closed'))).toBe(true);
    expect(
      lines.some((line) => line.includes('audio socket opened') && line.includes('"keyFrom":"query"')),
    ).toBe(true);
    const text = lines.join('\n');
    for (const user of [ann, bob]) {
      expect(text).not.toContain(user.key);
      expect(text).not.toContain(encodeURIComponent(user.key));
    }
    expect(text).not.toContain('mb_not-a-key');
    expect(text).not.toContain('mb_wrong');
    expect(text).not.toContain('api_key=');
  });
});
