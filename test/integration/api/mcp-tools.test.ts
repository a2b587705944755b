import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botCommand } from '../../../shared/contract/commands.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { claimLaunch } from '../../../shared/meetings/launch-store.js';
import { startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { FakeBots } from '../../support/fake-bot.js';
import { connectMcp, type McpTestClient } from '../../support/mcp.js';
import { advanceMeeting } from '../../support/meetings.js';

// Every tool's happy path and refusals, and the resources, through the SDK's own client against the
// real app on a real port (Postgres, Redis, the ingester writing what a bot sends). A refusal must say
// exactly what the REST route says for the same request: the tests ask both and compare.

let api: TestApi;
let bots: FakeBots;
let user: TestUser;
let mcp: McpTestClient;

beforeAll(async () => {
  api = await startTestApi({
    env: {
      SPEAK_QUEUE_MAX: '2',
      LIST_DEFAULT_LIMIT: '5',
      LIST_MAX_LIMIT: '10',
      MEETING_DATA_MAX_BYTES: '4096',
    },
  });
  bots = new FakeBots(api);
  user = await api.createUser({ maxConcurrentBots: 50 });
  mcp = await connectMcp(api.baseUrl, user.key);
});
afterAll(async () => {
  await mcp?.close();
  await bots?.close();
  await api?.close();
});

/** What the REST API answers `user` for the same request, as its `error` text. */
async function restError(method: string, path: string, json?: unknown): Promise<string> {
  const response = await api.request(method, path, { key: user.key, ...(json !== undefined && { json }) });
  expect(response.status, `${method} ${path} ${response.text}`).toBeGreaterThanOrEqual(400);
  return response.body.error;
}

async function restJson(path: string) {
  const response = await api.request('GET', path, { key: user.key });
  expect(response.status, `${path} ${response.text}`).toBe(200);
  return response;
}

/** send_bot, then the launch claimed as a worker would, so the meeting's bot can write to its streams. */
async function sentBot(nativeId: string, extra: Record<string, unknown> = {}) {
  const meeting = await mcp.json('send_bot', {
    platform: 'google_meet',
    native_meeting_id: nativeId,
    ...extra,
  });
  const sessionId = `session-${nativeId}`;
  await claimLaunch(api.database.db, meeting.id, { sessionId, workerId: 'mcp-tests' });
  return { meetingId: meeting.id as number, sessionId };
}

async function commandsOf(meetingId: number) {
  const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
  return entries.map(([, fields]) => {
    const decoded = decodeStreamEntry(botCommand, fields);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  });
}

describe('tools/list', () => {
  it('lists every tool with its arguments as JSON Schema, the deployment’s page sizes included', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'parse_meeting_link',
      'send_bot',
      'list_running_bots',
      'stop_bot',
      'list_meetings',
      'get_meeting',
      'update_meeting_data',
      'get_transcript',
      'search',
      'speak',
      'stop_speaking',
      'send_chat_message',
      'read_chat',
    ]);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description?.length, tool.name).toBeGreaterThan(20);
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
    }
    expect(byName.get('send_bot')?.inputSchema).toMatchObject({
      required: ['platform', 'native_meeting_id'],
      properties: {
        platform: { enum: ['google_meet', 'teams', 'zoom'] },
        recording_enabled: { type: 'boolean' },
        authenticated: { type: 'boolean' },
      },
    });
    expect(byName.get('list_meetings')?.inputSchema.properties?.limit).toMatchObject({
      type: 'integer',
      default: 5,
      maximum: 10,
    });
    expect(byName.get('get_transcript')?.inputSchema.properties?.format).toMatchObject({
      enum: ['json', 'txt', 'srt', 'vtt'],
      default: 'json',
    });
    const readOnly = tools.filter((tool) => tool.annotations?.readOnlyHint).map((tool) => tool.name);
    expect(readOnly.sort()).toEqual(
      [
        'parse_meeting_link',
        'list_running_bots',
        'list_meetings',
        'get_meeting',
        'get_transcript',
        'search',
        'read_chat',
      ].sort(),
    );
  });

  it('answers an unknown tool with a JSON-RPC error', async () => {
    const refused = await mcp.client.callTool({ name: 'no_such_tool', arguments: {} }).catch((e) => e);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused.code).toBe(-32602);
    expect(refused.message).toMatch(/Unknown tool: no_such_tool$/);
  });
});

describe('parse_meeting_link', () => {
  it('reads a Meet and a Teams link into what send_bot takes, and send_bot takes it', async () => {
    expect(
      await mcp.json('parse_meeting_link', { meeting_url: 'https://meet.google.com/pml-abcd-efg' }),
    ).toEqual({
      platform: 'google_meet',
      native_meeting_id: 'pml-abcd-efg',
      meeting_url: 'https://meet.google.com/pml-abcd-efg',
    });
    const teams = await mcp.json('parse_meeting_link', {
      meeting_url: 'https://teams.microsoft.com/meet/3141592653?p=Pi314',
    });
    expect(teams).toEqual({
      platform: 'teams',
      native_meeting_id: '3141592653',
      passcode: 'Pi314',
      meeting_url: 'https://teams.microsoft.com/meet/3141592653?p=Pi314',
    });
    const meeting = await mcp.json('send_bot', teams);
    expect(meeting).toMatchObject({
      platform: 'teams',
      native_meeting_id: '3141592653',
      status: 'requested',
    });
    await mcp.json('stop_bot', { platform: 'teams', native_meeting_id: '3141592653' });
  });

  it('refuses a link that names no meeting, saying why', async () => {
    expect(await mcp.error('parse_meeting_link', { meeting_url: 'https://zoom.example.com/j/123' })).toMatch(
      /^meeting_url: not a meeting link of a supported platform \(meet\.google\.com, teams\.microsoft\.com/,
    );
    expect(
      await mcp.error('parse_meeting_link', {
        meeting_url: 'https://teams.microsoft.com/l/meetup-join/19%3ameeting_x%40thread.v2/0',
      }),
    ).toBe('meeting_url: a teams meeting link has the path /meet/{digits}?p={passcode}');
    expect(await mcp.error('parse_meeting_link', { meeting_url: 'not a link' })).toBe(
      'meeting_url: must be an absolute URL',
    );
    expect(await mcp.error('parse_meeting_link', {})).toMatch(/^meeting_url: must be a string/);
  });
});

describe('send_bot', () => {
  it('creates the meeting and queues its launch, as POST /bots does', async () => {
    const meeting = await mcp.json('send_bot', {
      platform: 'google_meet',
      native_meeting_id: 'snd-botx-mcp',
      bot_name: 'Agent Notes',
    });
    expect(meeting).toEqual({
      id: expect.any(Number),
      platform: 'google_meet',
      native_meeting_id: 'snd-botx-mcp',
      status: 'requested',
      start_time: null,
      end_time: null,
      bot_container_id: null,
      data: {},
      created_at: expect.any(String),
    });
    expect((await restJson(`/meetings/${meeting.id}`)).body).toMatchObject(meeting);
    const waiting = await api.queues.launch.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(waiting.map((job) => job.data.meetingId)).toContain(meeting.id);
  });

  it.each([
    ['a malformed id', { platform: 'google_meet', native_meeting_id: 'not-a-meet-id' }],
    ['an unknown platform', { platform: 'webex', native_meeting_id: 'abc-defg-hij' }],
    ['a Teams meeting without its passcode', { platform: 'teams', native_meeting_id: '123456' }],
    ['a bad language', { platform: 'google_meet', native_meeting_id: 'lan-guag-eee', language: 'English' }],
    [
      'a link to another meeting',
      {
        platform: 'google_meet',
        native_meeting_id: 'abc-defg-hij',
        meeting_url: 'https://meet.google.com/xyz-abcd-efg',
      },
    ],
    ['a missing id', { platform: 'google_meet' }],
  ])('refuses %s with the REST error', async (_label, body) => {
    const text = await mcp.error('send_bot', body);
    expect(text).toBe(await restError('POST', '/bots', body));
    if (_label === 'a malformed id') expect(text).toBe('Invalid meeting ID format');
  });

  it('refuses a second bot for the same meeting, and past the user’s bot limit: `Too many concurrent bots`', async () => {
    await mcp.json('send_bot', { platform: 'google_meet', native_meeting_id: 'dup-lica-tee' });
    const duplicate = { platform: 'google_meet', native_meeting_id: 'dup-lica-tee' };
    expect(await mcp.error('send_bot', duplicate)).toBe(await restError('POST', '/bots', duplicate));

    const limited = await api.createUser({ maxConcurrentBots: 1 });
    const client = await connectMcp(api.baseUrl, limited.key);
    try {
      await client.json('send_bot', { platform: 'google_meet', native_meeting_id: 'one-only-bot' });
      expect(
        await client.error('send_bot', { platform: 'google_meet', native_meeting_id: 'two-many-bot' }),
      ).toBe('Too many concurrent bots');
    } finally {
      await client.close();
    }
  });
});

describe('list_running_bots and stop_bot', () => {
  it('lists the running bot until stop_bot completes its meeting; then `Bot not found`', async () => {
    const { meetingId } = await sentBot('run-ning-bot');
    await advanceMeeting(api.database.db, meetingId, 'active', 'container-run');
    const running = await mcp.json('list_running_bots');
    expect(running).toEqual((await restJson('/bots/status')).body);
    expect(running.running_bots).toContainEqual({
      container_id: 'container-run',
      meeting_id: meetingId,
      platform: 'google_meet',
      native_meeting_id: 'run-ning-bot',
    });

    const stopped = await mcp.json('stop_bot', {
      platform: 'google_meet',
      native_meeting_id: 'run-ning-bot',
    });
    expect(stopped).toMatchObject({ id: meetingId, status: 'completed', bot_container_id: null });
    const after = await mcp.json('list_running_bots');
    expect(after.running_bots.map((bot: { meeting_id: number }) => bot.meeting_id)).not.toContain(meetingId);

    const again = await mcp.error('stop_bot', { platform: 'google_meet', native_meeting_id: 'run-ning-bot' });
    expect(again).toBe('Bot not found');
    expect(again).toBe(await restError('DELETE', '/bots/google_meet/run-ning-bot'));
    expect(await mcp.error('stop_bot', { platform: 'skype', native_meeting_id: 'run-ning-bot' })).toBe(
      await restError('DELETE', '/bots/skype/run-ning-bot'),
    );
  });
});

describe('list_meetings, get_meeting and update_meeting_data', () => {
  it('pages the user’s meetings newest first, as GET /meetings does', async () => {
    await sentBot('pag-eone-xxx');
    await sentBot('pag-etwo-xxx');
    const first = await mcp.json('list_meetings');
    expect(first).toEqual((await restJson('/meetings')).body);
    expect(first.meetings).toHaveLength(5);
    expect(first.meetings[0].native_meeting_id).toBe('pag-etwo-xxx');
    const page = await mcp.json('list_meetings', { limit: 2, offset: 1 });
    expect(page).toEqual((await restJson('/meetings?limit=2&offset=1')).body);
    expect(page.meetings.map((m: { native_meeting_id: string }) => m.native_meeting_id)).toEqual([
      'pag-eone-xxx',
      first.meetings[2].native_meeting_id,
    ]);
    expect(await mcp.error('list_meetings', { limit: 0 })).toBe('limit: must be at least 1');
    expect(await mcp.error('list_meetings', { limit: 11 })).toBe('limit: must be at most 10');
    expect(await mcp.error('list_meetings', { offset: 1.5 })).toBe('offset: must be a whole number');
  });

  it('reads one meeting as GET /meetings/{id} does; another id is `Meeting not found`', async () => {
    const { meetingId } = await sentBot('get-meet-ing');
    expect(await mcp.json('get_meeting', { meeting_id: meetingId })).toEqual(
      (await restJson(`/meetings/${meetingId}`)).body,
    );
    const missing = await mcp.error('get_meeting', { meeting_id: 987_654_321 });
    expect(missing).toBe('Meeting not found');
    expect(missing).toBe(await restError('GET', '/meetings/987654321'));
    expect(await mcp.error('get_meeting', { meeting_id: 0 })).toBe('meeting_id: must be a positive integer');
    expect(await mcp.error('get_meeting', {})).toBe('meeting_id: must be a positive integer');
  });

  it('changes only the members given, removes those set to null, and refuses as PATCH does', async () => {
    const { meetingId } = await sentBot('upd-atem-eet');
    const ref = { platform: 'google_meet', native_meeting_id: 'upd-atem-eet' };
    const updated = await mcp.json('update_meeting_data', {
      ...ref,
      data: { name: 'Budget review', participants: ['Ann', 'Bo'], project: 'apollo' },
    });
    expect(updated).toEqual({
      id: meetingId,
      platform: 'google_meet',
      native_meeting_id: 'upd-atem-eet',
      status: 'requested',
      data: { name: 'Budget review', participants: ['Ann', 'Bo'], project: 'apollo' },
    });
    const second = await mcp.json('update_meeting_data', { ...ref, data: { name: null, notes: 'Agreed.' } });
    expect(second.data).toEqual({ participants: ['Ann', 'Bo'], project: 'apollo', notes: 'Agreed.' });
    expect((await restJson(`/meetings/${meetingId}`)).body.data).toEqual(second.data);

    for (const [args, body, path] of [
      [{ ...ref, data: { name: 5 } }, { data: { name: 5 } }, '/meetings/google_meet/upd-atem-eet'],
      [ref, {}, '/meetings/google_meet/upd-atem-eet'],
      [
        { ...ref, data: { notes: 'x'.repeat(5000) } },
        { data: { notes: 'x'.repeat(5000) } },
        '/meetings/google_meet/upd-atem-eet',
      ],
      [
        { platform: 'google_meet', native_meeting_id: 'nev-erse-enx', data: { name: 'x' } },
        { data: { name: 'x' } },
        '/meetings/google_meet/nev-erse-enx',
      ],
    ] as const) {
      const text = await mcp.error('update_meeting_data', args);
      expect(text).toBe(await restError('PATCH', path, body));
    }
    expect(await mcp.error('update_meeting_data', { ...ref, data: { name: 5 } })).toBe(
      'data.name: must be a string or null',
    );
  });
});

describe('get_transcript', () => {
  it('answers the transcript as GET /transcripts does, by meeting id or by platform and native id, in every format', async () => {
    const { meetingId, sessionId } = await sentBot('tra-nscr-ipt');
    await bots.event(meetingId, sessionId, 'joining');
    await bots.event(meetingId, sessionId, 'awaiting_admission');
    await bots.event(meetingId, sessionId, 'active');
    await bots.segment(meetingId, sessionId, {
      id: 's2',
      start: 12,
      text: 'The budget is approved.',
      speaker: 'Bo',
    });
    await bots.segment(meetingId, sessionId, { id: 's1', start: 3, text: 'Shall we decide the budget?' });
    const ref = { platform: 'google_meet', native_meeting_id: 'tra-nscr-ipt' };
    // The status and the segments arrive on different streams: wait for both before comparing.
    await expect
      .poll(
        async () => {
          const transcript = await mcp.json('get_transcript', ref);
          return [transcript.status, transcript.segments.length];
        },
        { timeout: 20_000 },
      )
      .toEqual(['active', 2]);

    const json = await mcp.call('get_transcript', ref);
    const rest = await restJson('/transcripts/google_meet/tra-nscr-ipt');
    expect(json.text).toBe(rest.text);
    expect(json.json().segments.map((s: { text: string }) => s.text)).toEqual([
      'Shall we decide the budget?',
      'The budget is approved.',
    ]);
    expect((await mcp.call('get_transcript', { meeting_id: meetingId })).text).toBe(rest.text);
    for (const format of ['txt', 'srt', 'vtt']) {
      const text = (await mcp.call('get_transcript', { ...ref, format })).text;
      expect(text).toBe((await restJson(`/transcripts/google_meet/tra-nscr-ipt?format=${format}`)).text);
      expect((await mcp.call('get_transcript', { meeting_id: meetingId, format })).text).toBe(text);
    }
    expect((await mcp.call('get_transcript', { ...ref, format: 'txt' })).text).toBe(
      '[00:00:03] Ann: Shall we decide the budget?\n[00:00:12] Bo: The budget is approved.\n',
    );
  });

  it('refuses as GET /transcripts does, and says how to name the meeting', async () => {
    const unknown = { platform: 'google_meet', native_meeting_id: 'nos-uchm-eet' };
    expect(await mcp.error('get_transcript', unknown)).toBe('Meeting not found');
    expect(await mcp.error('get_transcript', unknown)).toBe(
      await restError('GET', '/transcripts/google_meet/nos-uchm-eet'),
    );
    expect(await mcp.error('get_transcript', { meeting_id: 987_654_321 })).toBe('Meeting not found');
    expect(await mcp.error('get_transcript', { ...unknown, format: 'pdf' })).toBe(
      await restError('GET', '/transcripts/google_meet/nos-uchm-eet?format=pdf'),
    );
    expect(await mcp.error('get_transcript', { platform: 'teams' })).toMatch(/^native_meeting_id: /);
    expect(await mcp.error('get_transcript', {})).toBe(
      'Arguments: give meeting_id, or platform and native_meeting_id',
    );
    expect(await mcp.error('get_transcript', { ...unknown, meeting_id: 1 })).toBe(
      'Arguments: give meeting_id, or platform and native_meeting_id, not both',
    );
  });
});

describe('search', () => {
  it('finds what was said, as GET /search does, and refuses as it does', async () => {
    const { meetingId, sessionId } = await sentBot('sea-rchm-cpt');
    await bots.event(meetingId, sessionId, 'joining');
    await bots.event(meetingId, sessionId, 'awaiting_admission');
    await bots.event(meetingId, sessionId, 'active');
    await bots.segment(meetingId, sessionId, {
      id: 's1',
      start: 4,
      text: 'The invoices go out on Thursday.',
    });
    await bots.segment(meetingId, sessionId, {
      id: 's2',
      start: 9,
      text: 'Nothing else today.',
      speaker: 'Bo',
    });
    // Found once the segment is stored and the meeting's status caught up (they come on two streams).
    await expect
      .poll(async () => (await mcp.json('search', { q: 'invoice thursday' })).hits[0]?.meeting.status, {
        timeout: 20_000,
      })
      .toBe('active');
    const found = await mcp.json('search', { q: 'invoice thursday' });
    expect(found.hits[0]).toMatchObject({
      field: 'transcript',
      meeting: { id: meetingId, platform: 'google_meet', native_meeting_id: 'sea-rchm-cpt' },
      segment: { speaker: 'Ann', text: 'The invoices go out on Thursday.' },
    });
    expect(found.hits[0].snippet).toContain('<mark>');
    expect(found).toEqual((await restJson('/search?q=invoice%20thursday')).body);
    expect(await mcp.json('search', { q: 'invoices', speaker: 'Bo' })).toMatchObject({ total: 0, hits: [] });
    expect(await mcp.json('search', { q: 'invoices', meeting_id: meetingId, limit: 1 })).toMatchObject({
      total: 1,
    });

    expect(await mcp.error('search', { q: '' })).toBe(await restError('GET', '/search?q='));
    expect(await mcp.error('search', { q: 'x', from: 'yesterday' })).toBe(
      await restError('GET', '/search?q=x&from=yesterday'),
    );
    expect(await mcp.error('search', { q: 'x', meeting_id: 987_654_321 })).toBe('Meeting not found');
    expect(await mcp.error('search', { q: 'x', limit: 11 })).toBe(
      await restError('GET', '/search?q=x&limit=11'),
    );
  });
});

describe("the bot's actions: speak, stop_speaking, send_chat_message, read_chat", () => {
  it('reach an active bot through its command stream, as the REST routes do', async () => {
    const { meetingId, sessionId } = await sentBot('bot-acti-ons');
    const ref = { platform: 'google_meet', native_meeting_id: 'bot-acti-ons' };
    // Not active yet: every action is `Bot not found`, as REST says.
    for (const [tool, args, method, path, body] of [
      ['speak', { ...ref, text: 'Hello' }, 'POST', '/bots/google_meet/bot-acti-ons/speak', { text: 'Hello' }],
      ['stop_speaking', ref, 'DELETE', '/bots/google_meet/bot-acti-ons/speak', undefined],
      [
        'send_chat_message',
        { ...ref, text: 'Hi' },
        'POST',
        '/bots/google_meet/bot-acti-ons/chat',
        { text: 'Hi' },
      ],
    ] as const) {
      const text = await mcp.error(tool, args);
      expect(text, tool).toBe('Bot not found');
      expect(text, tool).toBe(await restError(method, path, body));
    }
    await bots.event(meetingId, sessionId, 'joining');
    await bots.event(meetingId, sessionId, 'awaiting_admission');
    await bots.event(meetingId, sessionId, 'active');
    await expect
      .poll(async () => (await mcp.json('get_meeting', { meeting_id: meetingId })).status)
      .toBe('active');

    const spoken = await mcp.json('speak', { ...ref, text: '  The notes are ready.  ', voice: 'kal' });
    expect(spoken).toMatchObject({ meeting_id: meetingId, request_id: expect.any(String), queued: 1 });
    const stopped = await mcp.json('stop_speaking', ref);
    expect(stopped).toMatchObject({ meeting_id: meetingId });
    const chat = await mcp.json('send_chat_message', { ...ref, text: 'Summary follows by email' });
    expect(chat).toEqual({
      message: 'Chat message sent to the bot',
      meeting_id: meetingId,
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      text: 'Summary follows by email',
      status: 'queued',
    });
    expect(await commandsOf(meetingId)).toEqual([
      expect.objectContaining({
        type: 'speak',
        requestId: spoken.request_id,
        text: 'The notes are ready.',
        voice: 'kal',
      }),
      expect.objectContaining({ type: 'speak.stop' }),
      expect.objectContaining({ type: 'chat.send', id: chat.message_id, text: 'Summary follows by email' }),
    ]);

    // The speech queue's limit (SPEAK_QUEUE_MAX 2): the same refusal as POST …/speak.
    await mcp.json('speak', { ...ref, text: 'One.' });
    await mcp.json('speak', { ...ref, text: 'Two.' });
    const full = await mcp.error('speak', { ...ref, text: 'Three.' });
    expect(full).toMatch(/^The bot's speech queue is full \(at most 2 requests waiting or playing\)/);
    expect(full).toBe(await restError('POST', '/bots/google_meet/bot-acti-ons/speak', { text: 'Three.' }));

    // The chat the bot read, paged, as GET …/chat shows it.
    await bots.chat(meetingId, sessionId, { key: 'c1', sender: 'Ann', text: 'first', seconds: 2 });
    await bots.chat(meetingId, sessionId, { key: 'c2', sender: 'Bo', text: 'second', seconds: 5 });
    await expect
      .poll(async () => (await mcp.json('read_chat', ref)).messages.length, { timeout: 20_000 })
      .toBe(2);
    expect(await mcp.json('read_chat', ref)).toEqual(
      (await restJson('/bots/google_meet/bot-acti-ons/chat')).body,
    );
    const second = await mcp.json('read_chat', { ...ref, limit: 1, offset: 1 });
    expect(second).toEqual({
      meeting_id: meetingId,
      messages: [expect.objectContaining({ sender: 'Bo', text: 'second' })],
    });
  });

  it('refuse bad arguments with the REST routes’ words', async () => {
    const { meetingId } = await sentBot('bad-acti-ons');
    await advanceMeeting(api.database.db, meetingId, 'active');
    const ref = { platform: 'google_meet', native_meeting_id: 'bad-acti-ons' };
    const path = '/bots/google_meet/bad-acti-ons';
    expect(await mcp.error('send_chat_message', { ...ref, text: 'x'.repeat(501) })).toBe(
      await restError('POST', `${path}/chat`, { text: 'x'.repeat(501) }),
    );
    expect(await mcp.error('speak', { ...ref, text: 'Hi', language: 'Klingon' })).toBe(
      await restError('POST', `${path}/speak`, { text: 'Hi', language: 'Klingon' }),
    );
    // A rule on the arguments as a whole: REST says `Request body: …`, MCP `Arguments: …`.
    const both = { text: 'Hi', audio_url: 'https://example.com/a.wav' };
    expect(await mcp.error('speak', { ...ref, ...both })).toBe(
      'Arguments: must contain exactly one of text, audio_base64, audio_url',
    );
    expect(await restError('POST', `${path}/speak`, both)).toBe(
      'Request body: must contain exactly one of text, audio_base64, audio_url',
    );
    expect(await mcp.error('read_chat', { platform: 'google_meet', native_meeting_id: 'nor-eadm-eet' })).toBe(
      await restError('GET', '/bots/google_meet/nor-eadm-eet/chat'),
    );
    expect(await mcp.error('read_chat', { ...ref, limit: 0 })).toBe('limit: must be at least 1');
  });
});

describe('resources', () => {
  it('lists the newest meetings and their transcripts, and three templates', async () => {
    const { resources } = await mcp.client.listResources();
    const newest = (await restJson('/meetings')).body.meetings as Array<{ id: number }>;
    expect(resources.map((resource) => resource.uri).sort()).toEqual(
      newest.flatMap((meeting) => [`meeting://${meeting.id}`, `transcript://${meeting.id}`]).sort(),
    );
    expect(resources.find((resource) => resource.uri === `transcript://${newest[0]?.id}`)?.mimeType).toBe(
      'text/plain',
    );
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => [template.uriTemplate, template.mimeType])).toEqual([
      ['meeting://{id}', 'application/json'],
      ['transcript://{id}', 'text/plain'],
      ['transcript://{id}/json', 'application/json'],
    ]);
  });

  it('reads a meeting and its transcript as the REST routes answer them', async () => {
    const { meetingId, sessionId } = await sentBot('res-ourc-ess');
    await mcp.json('update_meeting_data', {
      platform: 'google_meet',
      native_meeting_id: 'res-ourc-ess',
      data: { name: 'Resource check' },
    });
    await bots.event(meetingId, sessionId, 'active');
    await bots.segment(meetingId, sessionId, { id: 'r1', start: 1, text: 'Resources are read here.' });
    await expect
      .poll(async () => (await mcp.read(`transcript://${meetingId}`)).text, { timeout: 20_000 })
      .toContain('Resources are read here.');
    await expect
      .poll(async () => (await mcp.json('get_meeting', { meeting_id: meetingId })).status, {
        timeout: 20_000,
      })
      .toBe('active');

    const meeting = await mcp.read(`meeting://${meetingId}`);
    expect(meeting.mimeType).toBe('application/json');
    expect(JSON.parse(meeting.text)).toEqual((await restJson(`/meetings/${meetingId}`)).body);
    expect((await mcp.read(`transcript://${meetingId}`)).text).toBe(
      (await restJson('/transcripts/google_meet/res-ourc-ess?format=txt')).text,
    );
    const json = await mcp.read(`transcript://${meetingId}/json`);
    expect(json.mimeType).toBe('application/json');
    expect(json.text).toBe((await restJson('/transcripts/google_meet/res-ourc-ess')).text);
    const { resources } = await mcp.client.listResources();
    expect(resources.find((resource) => resource.uri === `meeting://${meetingId}`)?.title).toBe(
      'Resource check',
    );
  });

  it('refuses an unknown meeting with `Meeting not found` and a malformed id as the path does', async () => {
    for (const uri of ['meeting://987654321', 'transcript://987654321', 'transcript://987654321/json']) {
      const refused = await mcp.read(uri).catch((error) => error);
      expect(refused, uri).toBeInstanceOf(McpError);
      expect(refused.code, uri).toBe(-32002);
      expect(refused.message, uri).toBe('MCP error -32002: Meeting not found');
    }
    const malformed = await mcp.read('meeting://first').catch((error) => error);
    expect(malformed.code).toBe(-32602);
    expect(malformed.message).toBe(`MCP error -32602: ${await restError('GET', '/meetings/first')}`);
  });
});
