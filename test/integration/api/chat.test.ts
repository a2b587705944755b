import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botCommand } from '../../../shared/contract/commands.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream, botDeadLetterStream } from '../../../shared/contract/streams.js';
import type { TestApi, TestUser } from '../../support/api.js';
import type { FakeBots } from '../../support/fake-bot.js';
import { advanceMeeting } from '../../support/meetings.js';
import { startWebhookWorld, type WebhookWorld } from '../../support/webhook-service.js';

let world: WebhookWorld;
let api: TestApi;
let bots: FakeBots;
let user: TestUser;

beforeAll(async () => {
  world = await startWebhookWorld();
  ({ api, bots } = world);
  user = await api.createUser({ maxConcurrentBots: 20 });
});
afterAll(() => world.close());

const key = () => ({ key: user.key });

describe('POST /bots/{platform}/{native_meeting_id}/chat', () => {
  it('only for an active bot: 404 Bot not found before, then the command goes on the durable stream', async () => {
    const { meetingId } = await bots.startMeeting(user, 'cha-tsen-dxx');
    const early = await api.request('POST', '/bots/google_meet/cha-tsen-dxx/chat', {
      ...key(),
      json: { text: 'hello' },
    });
    expect(early.status).toBe(404);
    expect(early.body).toEqual({ error: 'Bot not found' });
    const nobody = await api.request('POST', '/bots/google_meet/zzz-zzzz-zzz/chat', {
      ...key(),
      json: { text: 'hello' },
    });
    expect(nobody.status).toBe(404);

    await advanceMeeting(api.database.db, meetingId, 'active');
    const sent = await api.request('POST', '/bots/google_meet/cha-tsen-dxx/chat', {
      ...key(),
      json: { text: '  Notes will follow by email  ' },
    });
    expect(sent.status).toBe(202);
    expect(sent.body).toEqual({
      message: 'Chat message sent to the bot',
      meeting_id: meetingId,
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      text: 'Notes will follow by email',
      status: 'queued',
    });
    const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
    const commands = entries.map(([, fields]) => decodeStreamEntry(botCommand, fields));
    expect(commands.at(-1)).toEqual({
      ok: true,
      value: {
        type: 'chat.send',
        id: sent.body.message_id,
        text: 'Notes will follow by email',
        issuedAt: expect.any(String),
      },
    });

    // Another user's key doesn't reach this bot.
    const other = await api.createUser();
    const foreign = await api.request('POST', '/bots/google_meet/cha-tsen-dxx/chat', {
      key: other.key,
      json: { text: 'hello' },
    });
    expect(foreign.status).toBe(404);
  });

  it('answers 400 with a clear error for a missing, empty, non-string or too long text', async () => {
    const { meetingId } = await bots.startMeeting(user, 'cha-tbad-xxx');
    await advanceMeeting(api.database.db, meetingId, 'active');
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^text: /],
      [{ text: '   ' }, /^text: must not be empty/],
      [{ text: 42 }, /^text: must be a string/],
      [{ text: 'x'.repeat(501) }, /^text: must be at most 500 characters/],
      ['not an object', /must be a JSON object/],
    ];
    for (const [json, error] of cases) {
      const response = await api.request('POST', '/bots/google_meet/cha-tbad-xxx/chat', { ...key(), json });
      expect(response.status, JSON.stringify(json)).toBe(400);
      expect(response.body.error).toMatch(error);
    }
    const exactly = await api.request('POST', '/bots/google_meet/cha-tbad-xxx/chat', {
      ...key(),
      json: { text: 'x'.repeat(500) },
    });
    expect(exactly.status).toBe(202);
  });
});

describe('chat messages from the bot', () => {
  it('are stored once each, listed in meeting order, paged, sent as chat.message webhooks, and deleted with the meeting', async () => {
    const endpoint = await world.receiver();
    const { meetingId, sessionId } = await bots.startMeeting(user, 'cha-tred-xxx', {
      webhook_url: endpoint.url,
    });
    await bots.event(meetingId, sessionId, 'joining');
    await bots.event(meetingId, sessionId, 'awaiting_admission');
    await bots.event(meetingId, sessionId, 'active');
    await bots.chat(meetingId, sessionId, { key: 'm2', sender: 'Bob', text: 'second', seconds: 9 });
    await bots.chat(meetingId, sessionId, { key: 'm1', sender: 'Ann', text: 'first', seconds: 4.5 });
    // The bot saw m1 twice (a relaunched bot reads the panel again): stored and reported once.
    await bots.chat(meetingId, sessionId, { key: 'm1', sender: 'Ann', text: 'first', seconds: 4.5 });
    await bots.chat(meetingId, sessionId, {
      key: 'm3',
      sender: 'Notetaker',
      text: 'from the bot',
      fromBot: true,
      seconds: 12,
    });

    const list = async (path: string) => (await api.request('GET', path, key())).body;
    await expect
      .poll(async () => (await list('/bots/google_meet/cha-tred-xxx/chat')).messages?.length, {
        timeout: 20_000,
      })
      .toBe(3);
    const all = await list('/bots/google_meet/cha-tred-xxx/chat');
    expect(all.meeting_id).toBe(meetingId);
    expect(all.messages).toEqual([
      {
        id: expect.any(Number),
        sender: 'Ann',
        text: 'first',
        is_from_bot: false,
        timestamp: Date.UTC(2026, 10, 22, 9) + 4500,
        sent_at: new Date(Date.UTC(2026, 10, 22, 9) + 4500).toISOString(),
        start: 4.5,
      },
      expect.objectContaining({ sender: 'Bob', text: 'second', is_from_bot: false, start: 9 }),
      expect.objectContaining({ sender: 'Notetaker', text: 'from the bot', is_from_bot: true, start: 12 }),
    ]);
    const page = await list(`/meetings/${meetingId}/chat?limit=1&offset=1`);
    expect(page.messages.map((m: { text: string }) => m.text)).toEqual(['second']);
    const badLimit = await api.request('GET', `/meetings/${meetingId}/chat?limit=0`, key());
    expect(badLimit.status).toBe(400);

    // Scoped to the key's user.
    const other = await api.createUser();
    expect((await api.request('GET', `/meetings/${meetingId}/chat`, { key: other.key })).status).toBe(404);
    expect(
      (await api.request('GET', '/bots/google_meet/cha-tred-xxx/chat', { key: other.key })).body,
    ).toEqual({ error: 'Meeting not found' });

    await expect
      .poll(() => endpoint.accepted().filter((r) => r.json?.type === 'chat.message').length, {
        timeout: 20_000,
      })
      .toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const hooks = endpoint.accepted().filter((r) => r.json?.type === 'chat.message');
    expect(hooks).toHaveLength(3);
    expect(hooks.map((r) => r.json.data.message.text).sort()).toEqual(['first', 'from the bot', 'second']);
    expect(hooks[0]!.json.data.meeting).toEqual({
      id: meetingId,
      platform: 'google_meet',
      native_meeting_id: 'cha-tred-xxx',
    });

    await api.request('DELETE', '/bots/google_meet/cha-tred-xxx', key());
    const deleted = await api.request('DELETE', '/meetings/google_meet/cha-tred-xxx', key());
    expect(deleted.status).toBe(200);
    const rows = await api.database.db('chat_messages').where({ meeting_id: meetingId }).count('* as n');
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it('refuses a message from a bot stream for a meeting that does not exist (dead letter, nothing stored)', async () => {
    await bots.chat(999_999, 'session-none', { key: 'x', sender: 'Ann', text: 'lost', seconds: 1 });
    const reasons = async () =>
      (await api.redis.xrange(botDeadLetterStream(api.prefix), '-', '+')).map(
        ([, fields]) => fields[fields.indexOf('reason') + 1],
      );
    await expect.poll(reasons, { timeout: 10_000 }).toContain('meeting 999999 not found');
    const rows = await api.database.db('chat_messages').where({ meeting_id: 999_999 }).count('* as n');
    expect(Number(rows[0]?.n)).toBe(0);
  });
});
