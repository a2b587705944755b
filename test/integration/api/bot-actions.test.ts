import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  botCommand,
  SCREEN_IMAGE_MAX_BYTES,
  SPEAK_AUDIO_MAX_BYTES,
} from '../../../shared/contract/commands.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { advanceMeeting } from '../../support/meetings.js';

/** What chat, speak and screen have in common: one rate limit, and bodies sized for what they carry. */

let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  // The default REQUEST_BODY_LIMIT_BYTES (64 KiB) on purpose: media bodies are larger than it.
  api = await startTestApi({ rateLimited: true, env: { BOT_ACTIONS_PER_KEY_PER_MINUTE: '5' } });
});
afterAll(() => api?.close());

async function activeMeet(owner: TestUser, id: string): Promise<number> {
  const response = await api.request('POST', '/bots', { key: owner.key, json: googleMeetBot(id) });
  expect(response.status).toBe(201);
  await advanceMeeting(api.database.db, response.body.id, 'active');
  return response.body.id;
}

async function commandTypesOf(meetingId: number): Promise<string[]> {
  const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
  return entries.map(([, fields]) => {
    const decoded = decodeStreamEntry(botCommand, fields);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value.type;
  });
}

describe('one per-key limit for every bot action (BOT_ACTIONS_PER_KEY_PER_MINUTE)', () => {
  it('counts chat, speak and screen together; reading the chat is free; 429 with Retry-After past it', async () => {
    user = await api.createUser({ maxConcurrentBots: 5 });
    const meetingId = await activeMeet(user, 'bot-acti-ons');
    const path = '/bots/google_meet/bot-acti-ons';
    const { key } = user;
    const actions = [
      () => api.request('POST', `${path}/chat`, { key, json: { text: 'hello' } }),
      () => api.request('POST', `${path}/speak`, { key, json: { text: 'Hello.' } }),
      () => api.request('DELETE', `${path}/speak`, { key }),
      () => api.request('POST', `${path}/screen`, { key, json: { image_base64: 'iVBORw0K' } }),
      () => api.request('DELETE', `${path}/screen`, { key }),
    ];
    for (const action of actions) {
      expect((await action()).status).toBe(202);
      // Reads in between are not actions.
      expect((await api.request('GET', `${path}/chat`, { key })).status).toBe(200);
    }
    for (const action of [actions[0]!, actions[1]!, actions[3]!]) {
      const refused = await action();
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({
        error: expect.stringMatching(
          /^Rate limit exceeded: at most 5 bot actions per minute per API key; retry in \d+ s$/,
        ),
      });
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }
    // The refused ones sent nothing to the bot.
    expect(await commandTypesOf(meetingId)).toEqual([
      'chat.send',
      'speak',
      'speak.stop',
      'screen.show',
      'screen.stop',
    ]);
    // Another key of its own has its own count.
    const other = await api.createUser({ maxConcurrentBots: 5 });
    await activeMeet(other, 'oth-erac-tio');
    const theirs = await api.request('POST', '/bots/google_meet/oth-erac-tio/chat', {
      key: other.key,
      json: { text: 'hi' },
    });
    expect(theirs.status).toBe(202);
  });
});

describe('bodies that carry a clip or an image inline', () => {
  let owner: TestUser;
  beforeAll(async () => {
    owner = await api.createUser({ maxConcurrentBots: 5 });
  });

  it('takes the largest documented clip and image, far over REQUEST_BODY_LIMIT_BYTES', async () => {
    const meetingId = await activeMeet(owner, 'big-medi-aok');
    const clip = Buffer.alloc(SPEAK_AUDIO_MAX_BYTES, 7).toString('base64');
    const image = Buffer.alloc(SCREEN_IMAGE_MAX_BYTES, 9).toString('base64');
    expect(clip.length).toBeGreaterThan(api.config.REQUEST_BODY_LIMIT_BYTES * 20);
    const spoken = await api.request('POST', '/bots/google_meet/big-medi-aok/speak', {
      key: owner.key,
      json: { audio_base64: clip, audio_format: 'mp3' },
    });
    expect(spoken.status).toBe(202);
    const shown = await api.request('POST', '/bots/google_meet/big-medi-aok/screen', {
      key: owner.key,
      json: { image_base64: image },
    });
    expect(shown.status).toBe(202);
    expect(await commandTypesOf(meetingId)).toEqual(['speak', 'screen.show']);
  });

  it('names the member when its base64 is over the size, and answers 413 with what to do past the body cap', async () => {
    await activeMeet(owner, 'big-medi-ano');
    // Within the body cap, one byte too many once decoded: 400 naming the member.
    const tooLong = await api.request('POST', '/bots/google_meet/big-medi-ano/speak', {
      key: owner.key,
      json: { audio_base64: Buffer.alloc(SPEAK_AUDIO_MAX_BYTES + 3, 1).toString('base64') },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toEqual({
      error: `audio_base64: must decode to at most ${SPEAK_AUDIO_MAX_BYTES} bytes`,
    });
    // Far over: 413 before the body is read through, with the reason and the size in words.
    for (const [route, member] of [
      ['speak', 'audio_base64'],
      ['screen', 'image_base64'],
    ] as const) {
      const huge = await api.request('POST', `/bots/google_meet/big-medi-ano/${route}`, {
        key: owner.key,
        json: { [member]: Buffer.alloc(2 * 1024 * 1024, 1).toString('base64') },
      });
      expect(huge.status).toBe(413);
      expect(huge.body).toEqual({
        error: expect.stringMatching(
          new RegExp(
            `^Request body too large \\(limit \\d+ bytes\\); ${member} may carry at most 1048576 bytes of (audio|image) \\(decoded\\)$`,
          ),
        ),
      });
    }
    // Every other route keeps REQUEST_BODY_LIMIT_BYTES.
    const chat = await api.request('POST', '/bots/google_meet/big-medi-ano/chat', {
      key: owner.key,
      json: { text: 'x'.repeat(api.config.REQUEST_BODY_LIMIT_BYTES + 10) },
    });
    expect(chat.status).toBe(413);
    expect(chat.body).toEqual({
      error: `Request body too large (limit ${api.config.REQUEST_BODY_LIMIT_BYTES} bytes)`,
    });
  });
});
