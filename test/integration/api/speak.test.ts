import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botCommand, SPEAK_TEXT_MAX_CHARS } from '../../../shared/contract/commands.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { advanceMeeting } from '../../support/meetings.js';

let api: TestApi;
let user: TestUser;
let clipServer: Server;
let clipUrl: string;
const CLIP = Buffer.from('RIFF....WAVEfmt a clip of audio bytes');
const IDLE_TIMEOUT_MS = 1000;
const FETCH_DEADLINE_MS = 1500;

beforeAll(async () => {
  api = await startTestApi({
    env: {
      SPEAK_QUEUE_MAX: '3',
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_PORTS: 'any',
      SPEAK_AUDIO_URL_MAX_BYTES: '4096',
      WEBHOOK_TIMEOUT_MS: String(IDLE_TIMEOUT_MS),
      MEDIA_URL_FETCH_DEADLINE_MS: String(FETCH_DEADLINE_MS),
    },
  });
  user = await api.createUser({ maxConcurrentBots: 50 });
  clipServer = createServer((request, response) => {
    if (request.url === '/clip.wav') {
      response.writeHead(200, { 'content-type': 'audio/wav' }).end(CLIP);
    } else if (request.url === '/big.wav') {
      response.writeHead(200, { 'content-type': 'audio/wav' }).end(Buffer.alloc(10_000));
    } else if (request.url === '/trickle.wav') {
      // One byte every 200 ms, never done: never idle long enough for the idle timeout.
      response.writeHead(200, { 'content-type': 'audio/wav' });
      response.write('R');
      const timer = setInterval(() => response.write('I'), 200);
      response.on('close', () => clearInterval(timer));
    } else if (request.url === '/moved.wav') {
      response.writeHead(302, { location: '/clip.wav' }).end();
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => clipServer.listen(0, '127.0.0.1', resolve));
  clipUrl = `http://127.0.0.1:${(clipServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await api.close();
  await new Promise((resolve) => clipServer.close(resolve));
});

async function activeMeet(id: string): Promise<number> {
  const response = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
  expect(response.status).toBe(201);
  await advanceMeeting(api.database.db, response.body.id, 'active');
  return response.body.id;
}

async function commandsOf(meetingId: number) {
  const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
  return entries.map(([, fields]) => {
    const decoded = decodeStreamEntry(botCommand, fields);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  });
}

describe('POST /bots/{platform}/{native_meeting_id}/speak', () => {
  it('sends the text to an active bot on its command stream, in order', async () => {
    const meetingId = await activeMeet('spe-akte-xtt');
    const first = await api.request('POST', '/bots/google_meet/spe-akte-xtt/speak', {
      key: user.key,
      json: { text: 'Hello everyone.', voice: 'kal', language: 'en' },
    });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ meeting_id: meetingId, queued: 1, request_id: expect.any(String) });
    const second = await api.request('POST', '/bots/google_meet/spe-akte-xtt/speak', {
      key: user.key,
      json: { text: 'Second.' },
    });
    expect(second.body.queued).toBe(2);
    expect(await commandsOf(meetingId)).toEqual([
      {
        type: 'speak',
        requestId: first.body.request_id,
        text: 'Hello everyone.',
        voice: 'kal',
        language: 'en',
        issuedAt: expect.any(String),
      },
      { type: 'speak', requestId: second.body.request_id, text: 'Second.', issuedAt: expect.any(String) },
    ]);
  });

  it('answers 429 once the queue is full, and DELETE clears it and sends the stop', async () => {
    const meetingId = await activeMeet('ful-lque-uee');
    for (let i = 0; i < 3; i++) {
      const ok = await api.request('POST', '/bots/google_meet/ful-lque-uee/speak', {
        key: user.key,
        json: { text: `Request number ${i} with a few words in it.` },
      });
      expect(ok.status).toBe(202);
    }
    const full = await api.request('POST', '/bots/google_meet/ful-lque-uee/speak', {
      key: user.key,
      json: { text: 'One too many.' },
    });
    expect(full.status).toBe(429);
    expect(full.body.error).toMatch(/speech queue is full \(at most 3 requests/);
    expect(full.headers.get('retry-after')).toMatch(/^\d+$/);

    const stop = await api.request('DELETE', '/bots/google_meet/ful-lque-uee/speak', { key: user.key });
    expect(stop.status).toBe(202);
    expect(stop.body).toMatchObject({ meeting_id: meetingId });
    const again = await api.request('POST', '/bots/google_meet/ful-lque-uee/speak', {
      key: user.key,
      json: { text: 'After the stop.' },
    });
    expect(again.status).toBe(202);
    expect(again.body.queued).toBe(1);
    expect((await commandsOf(meetingId)).map((command) => command.type)).toEqual([
      'speak',
      'speak',
      'speak',
      'speak.stop',
      'speak',
    ]);
  });

  it('sends an inline clip as it is, and fetches audio_url under the webhook address rules', async () => {
    const meetingId = await activeMeet('cli-pspe-akk');
    const base64 = CLIP.toString('base64');
    const inline = await api.request('POST', '/bots/google_meet/cli-pspe-akk/speak', {
      key: user.key,
      json: { audio_base64: base64, audio_format: 'wav' },
    });
    expect(inline.status).toBe(202);
    const fetched = await api.request('POST', '/bots/google_meet/cli-pspe-akk/speak', {
      key: user.key,
      json: { audio_url: `${clipUrl}/clip.wav`, audio_format: 'wav' },
    });
    expect(fetched.status).toBe(202);
    const commands = await commandsOf(meetingId);
    expect(commands.map((command) => command.type === 'speak' && command.audio)).toEqual([
      { format: 'wav', base64 },
      { format: 'wav', base64 },
    ]);

    for (const [path, message] of [
      ['/big.wav', /audio_url is larger than 4096 bytes/],
      ['/moved.wav', /audio_url answered HTTP 302 \(redirects are not followed\)/],
      ['/missing.wav', /audio_url answered HTTP 404/],
    ] as const) {
      const refused = await api.request('POST', '/bots/google_meet/cli-pspe-akk/speak', {
        key: user.key,
        json: { audio_url: `${clipUrl}${path}` },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(message);
    }
  });

  it('gives up an audio_url that trickles bytes past the whole-fetch deadline, with a clear 400', async () => {
    await activeMeet('cli-pspe-tri');
    const started = Date.now();
    const refused = await api.request('POST', '/bots/google_meet/cli-pspe-tri/speak', {
      key: user.key,
      json: { audio_url: `${clipUrl}/trickle.wav` },
    });
    const took = Date.now() - started;
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error:
        'audio_url could not be fetched: the whole download must finish within 1.5 s; serve the file faster or send it inline',
    });
    expect(took).toBeGreaterThanOrEqual(FETCH_DEADLINE_MS - 50);
    expect(took).toBeLessThan(FETCH_DEADLINE_MS + 2000);
  });

  it.each([
    ['nothing to say', {}, /exactly one of text, audio_base64, audio_url/],
    ['two things at once', { text: 'hi', audio_url: 'https://example.test/a.wav' }, /exactly one of/],
    ['an empty text', { text: '  ' }, /^text: must not be empty/],
    ['a text over the limit', { text: 'a'.repeat(SPEAK_TEXT_MAX_CHARS + 1) }, /^text: must be at most 2000/],
    ['a format with text', { text: 'hi', audio_format: 'mp3' }, /^audio_format: is only for/],
    ['an unknown format', { audio_base64: 'AAAA', audio_format: 'midi' }, /^audio_format: must be one of/],
    ['audio that is not base64', { audio_base64: '%%%' }, /^audio_base64: must be base64/],
    ['a bad language', { text: 'hi', language: 'English' }, /^language: /],
  ])('rejects %s with 400', async (_label, body, message) => {
    await activeMeet('val-idsp-eak');
    const response = await api.request('POST', '/bots/google_meet/val-idsp-eak/speak', {
      key: user.key,
      json: body,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    await api.request('DELETE', '/bots/google_meet/val-idsp-eak', { key: user.key });
  });

  it('is 404 Bot not found for a bot that is not active, a finished or an unknown meeting', async () => {
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('joi-ning-bot'),
    });
    await advanceMeeting(api.database.db, created.body.id, 'joining');
    await activeMeet('fin-ishe-ddd');
    await api.request('DELETE', '/bots/google_meet/fin-ishe-ddd', { key: user.key });
    for (const id of ['joi-ning-bot', 'fin-ishe-ddd', 'unk-nown-bot']) {
      for (const method of ['POST', 'DELETE'] as const) {
        const response = await api.request(method, `/bots/google_meet/${id}/speak`, {
          key: user.key,
          ...(method === 'POST' && { json: { text: 'hello' } }),
        });
        expect(response.status, `${method} ${id}`).toBe(404);
        expect(response.body).toEqual({ error: 'Bot not found' });
      }
    }
  });

  it("is 404 for another user's bot", async () => {
    await activeMeet('oth-erus-err');
    const other = await api.createUser();
    const response = await api.request('POST', '/bots/google_meet/oth-erus-err/speak', {
      key: other.key,
      json: { text: 'hello' },
    });
    expect(response.status).toBe(404);
  });
});
