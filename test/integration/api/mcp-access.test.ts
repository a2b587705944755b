import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { googleMeetBot, startTestApi, type TestApi } from '../../support/api.js';
import { FakeBots } from '../../support/fake-bot.js';
import { connectMcp, keyHeaders } from '../../support/mcp.js';
import { advanceMeeting } from '../../support/meetings.js';

// Who reaches what through /mcp: the key's user only, with the REST API's authentication and
// rate limits; and the transport as an HTTP client sees it (stateless, any replica answers).

let api: TestApi;
let bots: FakeBots;

beforeAll(async () => {
  api = await startTestApi();
  bots = new FakeBots(api);
});
afterAll(async () => {
  await bots?.close();
  await api?.close();
});

/** A JSON-RPC message POSTed to /mcp as a client would, without the SDK. */
function rawMcp(baseUrl: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const listBotsCall = {
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name: 'list_running_bots', arguments: {} },
};

describe('authentication', () => {
  it('takes the user’s key as X-API-Key or as Authorization: Bearer', async () => {
    const user = await api.createUser();
    for (const how of ['x-api-key', 'bearer'] as const) {
      const client = await connectMcp(api.baseUrl, user.key, how);
      expect(await client.json('list_running_bots'), how).toEqual({ running_bots: [] });
      await client.close();
    }
  });

  it('refuses a missing or wrong key with 401 `Unauthorized` before any MCP message is read', async () => {
    const user = await api.createUser();
    const attempts: Array<[string, Record<string, string>]> = [
      ['no key', {}],
      ['a wrong X-API-Key', keyHeaders('mb_wrong', 'x-api-key')],
      ['a wrong bearer key', keyHeaders('mb_wrong', 'bearer')],
      ['the key under another scheme', { Authorization: `Basic ${user.key}` }],
      // X-API-Key, when present, is the key: a good bearer key beside a wrong one does not count.
      [
        'a wrong X-API-Key beside a good bearer key',
        { 'X-API-Key': 'mb_wrong', Authorization: `Bearer ${user.key}` },
      ],
    ];
    for (const [label, headers] of attempts) {
      const answer = await rawMcp(api.baseUrl, listBotsCall, headers);
      expect(answer.status, label).toBe(401);
      expect(await answer.json(), label).toEqual({ error: 'Unauthorized' });
    }
    const refused = await connectMcp(api.baseUrl, 'mb_wrong').catch((error) => error);
    expect(refused.code).toBe(401);
    expect(refused.message).toContain('{"error":"Unauthorized"}');
  });

  it('leaves the REST API on X-API-Key alone: a bearer key there is 401', async () => {
    const user = await api.createUser();
    const answer = await api.request('GET', '/meetings', {
      headers: { Authorization: `Bearer ${user.key}` },
    });
    expect(answer.status).toBe(401);
  });
});

describe('isolation between users', () => {
  const ref = { platform: 'google_meet', native_meeting_id: 'ali-cese-cre' };

  it('never shows or changes another user’s meetings, bots, transcripts or chat, through tools or resources', async () => {
    const alice = await api.createUser();
    const bob = await api.createUser();
    const { meetingId, sessionId } = await bots.startMeeting(alice, 'ali-cese-cre');
    await bots.event(meetingId, sessionId, 'joining');
    await bots.event(meetingId, sessionId, 'awaiting_admission');
    await bots.event(meetingId, sessionId, 'active');
    await bots.segment(meetingId, sessionId, { id: 'a1', start: 1, text: 'The merger closes on Friday.' });
    await bots.chat(meetingId, sessionId, { key: 'm1', sender: 'Ann', text: 'confidential', seconds: 2 });
    await api.request('PATCH', '/meetings/google_meet/ali-cese-cre', {
      key: alice.key,
      json: { data: { name: 'Board only' } },
    });
    const asAlice = await connectMcp(api.baseUrl, alice.key);
    await expect
      .poll(async () => (await asAlice.json('get_transcript', { meeting_id: meetingId })).segments.length, {
        timeout: 20_000,
      })
      .toBe(1);
    await expect
      .poll(async () => (await asAlice.json('read_chat', ref)).messages.length, { timeout: 20_000 })
      .toBe(1);
    // The status comes on its own stream: the transcript compared below names it.
    await expect
      .poll(async () => (await asAlice.json('get_meeting', { meeting_id: meetingId })).status, {
        timeout: 20_000,
      })
      .toBe('active');
    const aliceTranscript = (await asAlice.call('get_transcript', ref)).text;

    const asBob = await connectMcp(api.baseUrl, bob.key, 'bearer');
    try {
      expect(await asBob.json('list_meetings')).toEqual({ meetings: [] });
      expect(await asBob.json('list_running_bots')).toEqual({ running_bots: [] });
      expect(await asBob.error('get_meeting', { meeting_id: meetingId })).toBe('Meeting not found');
      expect(await asBob.error('get_transcript', { meeting_id: meetingId })).toBe('Meeting not found');
      expect(await asBob.error('get_transcript', { ...ref, format: 'txt' })).toBe('Meeting not found');
      expect(await asBob.error('read_chat', ref)).toBe('Meeting not found');
      expect(await asBob.error('update_meeting_data', { ...ref, data: { name: 'Mine now' } })).toBe(
        'Meeting not found',
      );
      for (const [tool, args] of [
        ['stop_bot', ref],
        ['speak', { ...ref, text: 'Hello, this is Bob.' }],
        ['stop_speaking', ref],
        ['send_chat_message', { ...ref, text: 'Hello from Bob' }],
      ] as const) {
        expect(await asBob.error(tool, args), tool).toBe('Bot not found');
      }
      expect((await asBob.client.listResources()).resources).toEqual([]);
      for (const uri of [
        `meeting://${meetingId}`,
        `transcript://${meetingId}`,
        `transcript://${meetingId}/json`,
      ]) {
        const refused = await asBob.read(uri).catch((error) => error);
        expect(refused, uri).toBeInstanceOf(McpError);
        expect(refused.message, uri).toBe('MCP error -32002: Meeting not found');
      }

      // Bob's own bot for the same meeting id is his, and stopping it leaves Alice's running.
      const bobs = await asBob.json('send_bot', {
        platform: 'google_meet',
        native_meeting_id: 'ali-cese-cre',
      });
      expect(bobs.id).not.toBe(meetingId);
      await asBob.json('stop_bot', ref);
      expect(await asBob.json('list_meetings')).toEqual({
        meetings: [expect.objectContaining({ id: bobs.id, status: 'completed' })],
      });
    } finally {
      await asBob.close();
    }

    // Alice's meeting is as it was: active, named, nothing sent to her bot, the same transcript.
    const after = await asAlice.json('get_meeting', { meeting_id: meetingId });
    expect(after).toMatchObject({ status: 'active', data: { name: 'Board only' } });
    expect(await api.redis.xlen(botCommandsStream(api.prefix, meetingId))).toBe(0);
    expect((await asAlice.call('get_transcript', ref)).text).toBe(aliceTranscript);
    expect((await asAlice.client.listResources()).resources.map((r) => r.uri)).toEqual([
      `meeting://${meetingId}`,
      `transcript://${meetingId}`,
    ]);
    await asAlice.close();
  });
});

describe('the transport', () => {
  it('is stateless: no session id, and a tools/call without initialize works on another replica', async () => {
    const user = await api.createUser();
    const replica = await startTestApi({ replicaOf: api });
    try {
      const client = await connectMcp(api.baseUrl, user.key);
      await client.json('send_bot', { platform: 'google_meet', native_meeting_id: 'sta-tele-sss' });
      await client.close();
      const answer = await rawMcp(replica.baseUrl, listBotsCall, keyHeaders(user.key));
      expect(answer.status).toBe(200);
      expect(answer.headers.get('mcp-session-id')).toBeNull();
      expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
      const body = await answer.json();
      expect(body.id).toBe(7);
      expect(JSON.parse(body.result.content[0].text).running_bots).toEqual([
        expect.objectContaining({ native_meeting_id: 'sta-tele-sss' }),
      ]);
    } finally {
      await replica.close();
    }
  });

  it('answers 405 to GET and DELETE (no server-sent stream, no session to end)', async () => {
    const user = await api.createUser();
    for (const method of ['GET', 'DELETE']) {
      const answer = await fetch(`${api.baseUrl}/mcp`, {
        method,
        headers: { ...keyHeaders(user.key), Accept: 'text/event-stream' },
      });
      expect(answer.status, method).toBe(405);
      expect(answer.headers.get('allow'), method).toContain('POST');
      expect(await answer.json(), method).toEqual({ error: 'Method not allowed' });
    }
  });

  it('refuses what is not one JSON-RPC message with a 400 `error`, and an Accept without event streams with 406', async () => {
    const user = await api.createUser();
    const key = keyHeaders(user.key);
    const cases: Array<[string, unknown, string]> = [
      [
        'a batch',
        [listBotsCall, listBotsCall],
        'Request body: must be one JSON-RPC message (an object; batches are not accepted)',
      ],
      ['not JSON', '{"jsonrpc":', 'Request body is not valid JSON'],
      ['another JSON-RPC version', { ...listBotsCall, jsonrpc: '1.0' }, 'jsonrpc: must be "2.0"'],
    ];
    for (const [label, body, error] of cases) {
      const answer = await rawMcp(api.baseUrl, body, key);
      expect(answer.status, label).toBe(400);
      expect(await answer.json(), label).toEqual({ error });
    }
    const notAcceptable = await rawMcp(api.baseUrl, listBotsCall, { ...key, Accept: 'application/json' });
    expect(notAcceptable.status).toBe(406);
    expect((await notAcceptable.json()).error.message).toMatch(/^Not Acceptable/);
    const tooLarge = await rawMcp(
      api.baseUrl,
      { ...listBotsCall, params: { name: 'speak', arguments: { text: 'x'.repeat(70_000) } } },
      key,
    );
    expect(tooLarge.status).toBe(413);
  });
});

describe('rate limits (the REST API’s, shared with it)', () => {
  let limited: TestApi;
  beforeAll(async () => {
    limited = await startTestApi({
      rateLimited: true,
      env: {
        RATE_LIMIT_PER_KEY_PER_MINUTE: '6',
        BOT_ACTIONS_PER_KEY_PER_MINUTE: '1',
        AUTH_FAILURES_PER_IP_PER_MINUTE: '3',
      },
    });
  });
  afterAll(() => limited?.close());

  it('counts every POST /mcp against the key’s request rate, in the same window as its REST requests', async () => {
    const user = await limited.createUser();
    // initialize and notifications/initialized are two requests.
    const client = await connectMcp(limited.baseUrl, user.key);
    let answered = 0;
    let refusal: { code?: number; message: string } | undefined;
    for (let attempt = 0; attempt < 10 && !refusal; attempt++) {
      await client.call('list_running_bots').then(
        () => {
          answered += 1;
        },
        (error) => {
          refusal = error;
        },
      );
    }
    expect(answered).toBe(4);
    expect(refusal?.code).toBe(429);
    expect(refusal?.message).toContain(
      'Rate limit exceeded: at most 6 requests per minute per API key; retry in',
    );
    const rest = await limited.request('GET', '/meetings', { key: user.key });
    expect(rest.status).toBe(429);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another key of another user is not held back.
    const other = await limited.createUser();
    const otherClient = await connectMcp(limited.baseUrl, other.key);
    expect(await otherClient.json('list_running_bots')).toEqual({ running_bots: [] });
    await otherClient.close();
    await client.close();
  });

  it('counts speak against the per-key bot action limit, with the REST text', async () => {
    const user = await limited.createUser();
    const created = await limited.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('rat-elim-itt'),
    });
    expect(created.status).toBe(201);
    await advanceMeeting(limited.database.db, created.body.id, 'active');
    const client = await connectMcp(limited.baseUrl, user.key);
    const target = { platform: 'google_meet', native_meeting_id: 'rat-elim-itt' };
    await client.json('speak', { ...target, text: 'First.' });
    expect(await client.error('speak', { ...target, text: 'Second.' })).toMatch(
      /^Rate limit exceeded: at most 1 bot actions per minute per API key; retry in \d+ s$/,
    );
    expect(await client.error('stop_speaking', target)).toMatch(
      /^Rate limit exceeded: at most 1 bot actions/,
    );
    await client.close();
  });

  it('refuses an address past its failed authentications with 429, as REST does', async () => {
    const user = await limited.createUser();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      statuses.push(
        (await rawMcp(limited.baseUrl, listBotsCall, keyHeaders(`mb_guess${attempt}`, 'bearer'))).status,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    // Now even a good key from this address waits, on /mcp as on REST.
    const answer = await rawMcp(limited.baseUrl, listBotsCall, keyHeaders(user.key));
    expect(answer.status).toBe(429);
    expect((await answer.json()).error).toMatch(
      /^Too many failed authentication attempts from this address \(at most 3 per minute\)/,
    );
    expect((await limited.request('GET', '/meetings', { key: user.key })).status).toBe(429);
  });
});
