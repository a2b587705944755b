import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BotCommand, botCommand } from '../../../shared/contract/commands.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import type { TestApi, TestUser } from '../../support/api.js';
import type { FakeBots } from '../../support/fake-bot.js';
import { advanceMeeting } from '../../support/meetings.js';
import { solidPng } from '../../support/png.js';
import { startWebhookWorld, type WebhookWorld } from '../../support/webhook-service.js';

/**
 * The requests Vexa's clients send to speak, chat and screen, byte for byte as Python's `requests`
 * sends `json=` (json.dumps: ", " and ": " separators, non-ASCII as \uXXXX), with Vexa's field
 * names (its voice-agent API: `format`, `sample_rate`, `provider`, `voice: "auto"`; the screen's
 * `type` and `url`), and what they read back (`message`, `meeting_id`; the chat's `messages` with
 * `sender`, `text`, `timestamp`, `is_from_bot`). docs/api.md "Vexa's clients" has the comparison.
 */

let world: WebhookWorld;
let api: TestApi;
let bots: FakeBots;
let user: TestUser;
let mediaServer: Server;
let mediaUrl: string;
const PCM = Buffer.from(Int16Array.from([0, 1000, -1000, 32767, -32768, 5, -5, 0]).buffer);
const WAV_CLIP = Buffer.from('RIFF$\u0000\u0000\u0000WAVEfmt a greeting');
const CHART = solidPng(32, 18, [10, 200, 10]);

beforeAll(async () => {
  world = await startWebhookWorld();
  ({ api, bots } = world);
  user = await api.createUser({ maxConcurrentBots: 10 });
  mediaServer = createServer((request, response) => {
    if (request.url === '/greeting.wav')
      response.writeHead(200, { 'content-type': 'audio/wav' }).end(WAV_CLIP);
    else if (request.url === '/quarterly-chart.png')
      response.writeHead(200, { 'content-type': 'image/png' }).end(CHART);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => mediaServer.listen(0, '127.0.0.1', resolve));
  mediaUrl = `http://127.0.0.1:${(mediaServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await world?.close();
  await new Promise((resolve) => mediaServer.close(resolve));
});

/** json.dumps(value) as Python writes it: ", " and ": " between members, every non-ASCII character escaped. */
function pythonJson(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') {
    return JSON.stringify(value).replace(
      /[\u0080-\uffff]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  }
  if (typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([key, member]) => `${pythonJson(key)}: ${pythonJson(member)}`)
    .join(', ')}}`;
}

/** A request as `requests.Session().request(method, url, headers=…, json=…)` sends it. */
function pythonRequest(method: string, path: string, json?: Record<string, unknown>) {
  return api.request(method, path, {
    headers: {
      'X-API-Key': user.key,
      'User-Agent': 'python-requests/2.32.3',
      Accept: '*/*',
      ...(json && { 'Content-Type': 'application/json' }),
    },
    ...(json && { rawBody: pythonJson(json) }),
  });
}

async function commandsOf(meetingId: number): Promise<BotCommand[]> {
  const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
  return entries.map(([, fields]) => {
    const decoded = decodeStreamEntry(botCommand, fields);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  });
}

async function activeBot(nativeId: string): Promise<{ meetingId: number; sessionId: string }> {
  const started = await bots.startMeeting(user, nativeId);
  await advanceMeeting(api.database.db, started.meetingId, 'active');
  return started;
}

describe('Vexa\'s client on Zoom (platform="zoom")', () => {
  it('sends a bot by request_bot with a passcode, reads the transcript, speaks and stops it, as on the other platforms', async () => {
    const nativeId = '85412369870';
    const sent = await pythonRequest('POST', '/bots', {
      platform: 'zoom',
      native_meeting_id: nativeId,
      bot_name: 'Vexa Notes',
      language: 'en',
      passcode: 'Xy12ab',
    });
    expect(sent.status).toBe(201);
    expect(sent.body).toMatchObject({ platform: 'zoom', native_meeting_id: nativeId, status: 'requested' });
    const sessionId = `session-zoom-${sent.body.id}`;
    await claimLaunch(api.database.db, sent.body.id, { sessionId, workerId: 'fake-bots' });
    await advanceMeeting(api.database.db, sent.body.id, 'active');
    await bots.segment(sent.body.id, sessionId, {
      id: 'z1',
      start: 1,
      text: 'Hello from Zoom',
      final: true,
      speaker: 'Alice',
    });

    await expect
      .poll(async () => (await pythonRequest('GET', `/transcripts/zoom/${nativeId}`)).body.segments?.length, {
        timeout: 10_000,
      })
      .toBe(1);
    const transcript = await pythonRequest('GET', `/transcripts/zoom/${nativeId}`);
    expect(transcript.body).toMatchObject({ platform: 'zoom', native_meeting_id: nativeId });
    expect(transcript.body.segments[0]).toMatchObject({ text: 'Hello from Zoom', speaker: 'Alice' });

    const said = await pythonRequest('POST', `/bots/zoom/${nativeId}/speak`, { text: 'Hello Zoom' });
    expect(said.status).toBe(202);
    expect(await commandsOf(sent.body.id)).toMatchObject([{ type: 'speak', text: 'Hello Zoom' }]);
    const stopped = await pythonRequest('DELETE', `/bots/zoom/${nativeId}`);
    expect(stopped.status).toBe(202);
  });
});

describe("Vexa's speak requests", () => {
  it('text with its provider and voice, and voice "auto" as the engine default', async () => {
    const { meetingId } = await activeBot('vex-aspe-akt');
    const path = '/bots/google_meet/vex-aspe-akt/speak';
    const said = await pythonRequest('POST', path, {
      text: 'Hello everyone, here is the summary.',
      provider: 'openai',
      voice: 'nova',
    });
    expect(said.status).toBe(202);
    expect(said.body).toMatchObject({ message: expect.any(String), meeting_id: meetingId });
    const auto = await pythonRequest('POST', path, { text: 'Hello from the notetaker', voice: 'auto' });
    expect(auto.status).toBe(202);
    const [first, second] = await commandsOf(meetingId);
    expect(first).toMatchObject({
      type: 'speak',
      text: 'Hello everyone, here is the summary.',
      voice: 'nova',
    });
    expect(second).toMatchObject({ type: 'speak', text: 'Hello from the notetaker' });
    expect(second).not.toHaveProperty('voice');
  });

  it('a clip by URL with `format`, raw PCM with `sample_rate` (sent on as WAV), and the stop', async () => {
    const { meetingId } = await activeBot('vex-acli-pxx');
    const path = '/bots/google_meet/vex-acli-pxx/speak';
    const byUrl = await pythonRequest('POST', path, { audio_url: `${mediaUrl}/greeting.wav`, format: 'wav' });
    expect(byUrl.status).toBe(202);
    const pcm = await pythonRequest('POST', path, {
      audio_base64: PCM.toString('base64'),
      format: 'pcm',
      sample_rate: 24000,
    });
    expect(pcm.status).toBe(202);
    const stop = await pythonRequest('DELETE', path);
    expect(stop.status).toBe(202);
    expect(stop.body).toMatchObject({ message: expect.any(String), meeting_id: meetingId });

    const [url, raw, stopped] = await commandsOf(meetingId);
    expect(url).toMatchObject({
      type: 'speak',
      audio: { format: 'wav', base64: WAV_CLIP.toString('base64') },
    });
    expect(stopped).toMatchObject({ type: 'speak.stop' });
    // The PCM arrives as a WAV: 24 kHz, mono, 16 bits, the same samples.
    const wav = Buffer.from((raw as Extract<BotCommand, { type: 'speak' }>).audio!.base64, 'base64');
    expect((raw as Extract<BotCommand, { type: 'speak' }>).audio!.format).toBe('wav');
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(wav.subarray(8, 12).toString('ascii')).toBe('WAVE');
    expect(wav.readUInt16LE(20)).toBe(1);
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(24000);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.readUInt32LE(40)).toBe(PCM.length);
    expect(wav.subarray(44).equals(PCM)).toBe(true);
  });

  it('refuses PCM that is not whole samples, and format with audio_format, with a 400 naming the field', async () => {
    await activeBot('vex-abad-pcm');
    const path = '/bots/google_meet/vex-abad-pcm/speak';
    const odd = await pythonRequest('POST', path, {
      audio_base64: Buffer.from([1, 2, 3]).toString('base64'),
      format: 'pcm',
    });
    expect(odd.status).toBe(400);
    expect(odd.body.error).toMatch(/^audio_base64: PCM must hold whole 16-bit samples/);
    const both = await pythonRequest('POST', path, {
      audio_base64: PCM.toString('base64'),
      format: 'pcm',
      audio_format: 'wav',
    });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatch(/^format: /);
    const rateOnWav = await pythonRequest('POST', path, {
      audio_base64: PCM.toString('base64'),
      format: 'wav',
      sample_rate: 24000,
    });
    expect(rateOnWav.status).toBe(400);
    expect(rateOnWav.body.error).toMatch(/sample_rate and channels are only for pcm/);
  });
});

describe("Vexa's chat requests", () => {
  it('sends {text} (non-ASCII escaped as Python does) and reads messages with the fields its clients use', async () => {
    const { meetingId, sessionId } = await activeBot('vex-acha-txx');
    const path = '/bots/google_meet/vex-acha-txx/chat';
    const text = 'Résumé: 3 action items identified ✓';
    const sent = await pythonRequest('POST', path, { text });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ message: expect.any(String), meeting_id: meetingId, text });
    expect((await commandsOf(meetingId)).at(-1)).toMatchObject({ type: 'chat.send', text });

    await bots.chat(meetingId, sessionId, {
      key: 'v1',
      sender: 'John Smith',
      text: 'Can you share it?',
      seconds: 3,
    });
    await expect
      .poll(async () => (await pythonRequest('GET', path)).body.messages?.length, { timeout: 20_000 })
      .toBe(1);
    const read = await pythonRequest('GET', path);
    expect(read.status).toBe(200);
    expect(read.body.meeting_id).toBe(meetingId);
    const [message] = read.body.messages;
    expect(message).toMatchObject({ sender: 'John Smith', text: 'Can you share it?', is_from_bot: false });
    // Epoch milliseconds, as Vexa's bot stores Date.now().
    expect(message.timestamp).toBeGreaterThan(Date.parse('2020-01-01'));
    expect(Number.isInteger(message.timestamp)).toBe(true);
  });
});

describe("Vexa's screen requests", () => {
  it('shows {type: "image", url} (start_share accepted), refuses the types it cannot show, and stops', async () => {
    const { meetingId } = await activeBot('vex-ascr-een');
    const path = '/bots/google_meet/vex-ascr-een/screen';
    const shown = await pythonRequest('POST', path, {
      type: 'image',
      url: `${mediaUrl}/quarterly-chart.png`,
      start_share: true,
    });
    expect(shown.status).toBe(202);
    expect(shown.body).toMatchObject({ message: expect.any(String), meeting_id: meetingId });
    for (const type of ['url', 'video', 'html']) {
      const refused = await pythonRequest('POST', path, { type, url: `${mediaUrl}/slides` });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({
        error: 'type: only image is supported here (a still image shown as the bot camera)',
      });
    }
    const noType = await pythonRequest('POST', path, { url: `${mediaUrl}/quarterly-chart.png` });
    expect(noType.status).toBe(400);
    expect(noType.body.error).toMatch(/^url: needs type: image/);
    const stop = await pythonRequest('DELETE', path);
    expect(stop.status).toBe(202);
    expect(stop.body).toMatchObject({ message: expect.any(String), meeting_id: meetingId });
    expect(await commandsOf(meetingId)).toEqual([
      { type: 'screen.show', image: { base64: CHART.toString('base64') }, issuedAt: expect.any(String) },
      { type: 'screen.stop', issuedAt: expect.any(String) },
    ]);
  });

  it('answers a bot that is not active as Vexa does for speak, chat and screen alike: 404', async () => {
    for (const [method, action, json] of [
      ['POST', 'speak', { text: 'hi' }],
      ['POST', 'chat', { text: 'hi' }],
      ['POST', 'screen', { type: 'image', url: `${mediaUrl}/quarterly-chart.png` }],
      ['DELETE', 'speak', undefined],
      ['DELETE', 'screen', undefined],
    ] as const) {
      const response = await pythonRequest(method, `/bots/google_meet/non-eact-ive/${action}`, json);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Bot not found' });
    }
  });
});
