import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botCommand } from '../../../shared/contract/commands.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { advanceMeeting } from '../../support/meetings.js';
import { solidPng } from '../../support/png.js';

let api: TestApi;
let strict: TestApi;
let user: TestUser;
let imageServer: Server;
let imageUrl: string;
const PNG = solidPng(16, 9, [200, 10, 10]);

beforeAll(async () => {
  api = await startTestApi({
    env: {
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWED_PORTS: 'any',
    },
  });
  // The default address rules: https only, no private addresses.
  strict = await startTestApi({ replicaOf: api });
  user = await api.createUser({ maxConcurrentBots: 20 });
  imageServer = createServer((request, response) => {
    if (request.url === '/red.png') response.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => imageServer.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await strict?.close();
  await api?.close();
  await new Promise((resolve) => imageServer.close(resolve));
});

async function activeMeet(id: string): Promise<number> {
  const response = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
  expect(response.status).toBe(201);
  await advanceMeeting(api.database.db, response.body.id, 'active');
  return response.body.id;
}

describe('POST and DELETE /bots/{platform}/{native_meeting_id}/screen', () => {
  it('sends an inline image, a fetched one and the stop on the command stream', async () => {
    const meetingId = await activeMeet('scr-eens-how');
    const base64 = PNG.toString('base64');
    const inline = await api.request('POST', '/bots/google_meet/scr-eens-how/screen', {
      key: user.key,
      json: { image_base64: base64 },
    });
    expect(inline.status).toBe(202);
    expect(inline.body).toMatchObject({ meeting_id: meetingId, native_meeting_id: 'scr-eens-how' });
    const fetched = await api.request('POST', '/bots/google_meet/scr-eens-how/screen', {
      key: user.key,
      json: { image_url: `${imageUrl}/red.png` },
    });
    expect(fetched.status).toBe(202);
    const stop = await api.request('DELETE', '/bots/google_meet/scr-eens-how/screen', { key: user.key });
    expect(stop.status).toBe(202);
    const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
    const commands = entries.map(([, fields]) => decodeStreamEntry(botCommand, fields));
    expect(commands).toEqual([
      { ok: true, value: { type: 'screen.show', image: { base64 }, issuedAt: expect.any(String) } },
      { ok: true, value: { type: 'screen.show', image: { base64 }, issuedAt: expect.any(String) } },
      { ok: true, value: { type: 'screen.stop', issuedAt: expect.any(String) } },
    ]);
  });

  it('refuses an image_url the webhook address rules refuse, and bad bodies, with 400', async () => {
    await activeMeet('scr-eenb-add');
    const refused = await strict.request('POST', '/bots/google_meet/scr-eenb-add/screen', {
      key: user.key,
      json: { image_url: `${imageUrl}/red.png` },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^image_url must be an https URL/);
    for (const [body, message] of [
      [{}, /exactly one of image_base64, image_url/],
      [{ image_base64: 'AAAA', image_url: `${imageUrl}/red.png` }, /exactly one of/],
      [{ image_base64: '%%' }, /^image_base64: must be base64/],
      [{ image_url: `${imageUrl}/missing.png` }, /^image_url answered HTTP 404/],
    ] as const) {
      const response = await api.request('POST', '/bots/google_meet/scr-eenb-add/screen', {
        key: user.key,
        json: body,
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toMatch(message);
    }
  });

  it('is 404 Bot not found unless the bot is active', async () => {
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('scr-eenj-oin'),
    });
    await advanceMeeting(api.database.db, created.body.id, 'awaiting_admission');
    for (const id of ['scr-eenj-oin', 'unk-nown-scr']) {
      for (const method of ['POST', 'DELETE'] as const) {
        const response = await api.request(method, `/bots/google_meet/${id}/screen`, {
          key: user.key,
          ...(method === 'POST' && { json: { image_base64: 'AAAA' } }),
        });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ error: 'Bot not found' });
      }
    }
  });
});
