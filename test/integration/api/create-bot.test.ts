import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobNames } from '../../../shared/contract/jobs.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import { advanceMeeting } from '../../support/meetings.js';
import {
  googleMeetBot,
  ISO_UTC,
  MEETING_FIELDS,
  startTestApi,
  type TestApi,
  type TestUser,
  teamsBot,
} from '../../support/api.js';

let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser({ maxConcurrentBots: 100 });
});
afterAll(() => api.close());

let meetCounter = 0;
/** A fresh valid Google Meet id per call, so tests don't collide on the one-bot-per-meeting rule. */
function nextMeetId(): string {
  meetCounter += 1;
  const letters = meetCounter
    .toString(26)
    .padStart(4, '0')
    .replace(/[0-9a-p]/g, (c) => 'abcdefghijklmnopqrstuvwxyz'[Number.parseInt(c, 26)]!);
  return `abc-${letters}-xyz`;
}

describe('POST /bots', () => {
  it('creates a requested meeting with the spec shape and queues its launch', async () => {
    const id = nextMeetId();
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot(id, { language: 'en' }),
    });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual([...MEETING_FIELDS].sort());
    expect(response.body).toMatchObject({
      platform: 'google_meet',
      native_meeting_id: id,
      status: 'requested',
      start_time: null,
      end_time: null,
      bot_container_id: null,
      data: {},
    });
    expect(response.body.id).toEqual(expect.any(Number));
    expect(response.body.created_at).toMatch(ISO_UTC);

    const job = await api.queues.launch.getJob(`launch-${response.body.id}`);
    expect(job?.name).toBe(JobNames.launchBot);
    expect(job?.data).toEqual({
      meetingId: response.body.id,
      userId: user.id,
      platform: 'google_meet',
      nativeMeetingId: id,
    });

    const transitions = await listTransitions(api.database.db, response.body.id);
    expect(transitions.map((t) => [t.from, t.to, t.source])).toEqual([[null, 'requested', 'api']]);
  });

  it('stores the bot settings it was started with, defaulting the URL and name', async () => {
    const id = nextMeetId();
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: { platform: 'google_meet', native_meeting_id: id },
    });
    expect(response.status).toBe(201);
    const row = await api.database.db('meetings').where({ id: response.body.id }).first();
    expect(row).toMatchObject({
      meeting_url: `https://meet.google.com/${id}`,
      bot_name: 'Meetbot',
      language: null,
      task: 'transcribe',
      passcode: null,
    });
  });

  it('accepts a Teams meeting with passcode and URL, keeping the exact domain', async () => {
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: teamsBot('9876543210', { meeting_url: 'https://teams.live.com/meet/9876543210?p=Abc123' }),
    });
    expect(response.status).toBe(201);
    const row = await api.database.db('meetings').where({ id: response.body.id }).first();
    expect(row.meeting_url).toBe('https://teams.live.com/meet/9876543210?p=Abc123');
    expect(row.passcode).toBe('Abc123');
  });

  it('accepts a Zoom meeting without a passcode, or by a company link whose pwd is its passcode', async () => {
    const bare = await api.request('POST', '/bots', {
      key: user.key,
      json: { platform: 'zoom', native_meeting_id: '85412369870' },
    });
    expect(bare.status).toBe(201);
    expect(bare.body).toMatchObject({ platform: 'zoom', native_meeting_id: '85412369870' });
    const bareRow = await api.database.db('meetings').where({ id: bare.body.id }).first();
    expect(bareRow).toMatchObject({ meeting_url: 'https://zoom.us/wc/85412369870/join', passcode: null });

    const linked = await api.request('POST', '/bots', {
      key: user.key,
      json: {
        platform: 'zoom',
        native_meeting_id: '854123698',
        passcode: 'Xy12ab',
        meeting_url: 'https://acme.zoom.us/j/854123698?pwd=Xy12ab',
      },
    });
    expect(linked.status).toBe(201);
    const linkedRow = await api.database.db('meetings').where({ id: linked.body.id }).first();
    expect(linkedRow).toMatchObject({
      meeting_url: 'https://acme.zoom.us/j/854123698?pwd=Xy12ab',
      passcode: 'Xy12ab',
    });
  });

  it.each([
    ['google_meet', 'abc-defg-hi'],
    ['google_meet', 'ABC-DEFG-HIJ'],
    ['google_meet', 'abcdefghij'],
    ['google_meet', 'abc-defg-hij-'],
    ['google_meet', ''],
    ['teams', '12345abc'],
    ['teams', '123 456'],
    ['teams', ''],
    ['zoom', '12345678'],
    ['zoom', '854 1236 9870'],
    ['zoom', '123456789012'],
  ])('rejects %s id %j with the spec message', async (platform, nativeMeetingId) => {
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: { platform, native_meeting_id: nativeMeetingId, passcode: 'x1' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'Invalid meeting ID format' });
  });

  it.each([
    ['unknown platform', { platform: 'webex', native_meeting_id: 'abc-defg-hij' }, /^platform: /],
    ['missing platform', { native_meeting_id: 'abc-defg-hij' }, /^platform: /],
    ['platform of the wrong type', { platform: 7, native_meeting_id: 'abc-defg-hij' }, /^platform: /],
    ['missing native_meeting_id', { platform: 'google_meet' }, /^native_meeting_id: /],
    [
      'numeric native_meeting_id',
      { platform: 'teams', native_meeting_id: 123456789, passcode: 'a' },
      /^native_meeting_id: /,
    ],
    ['Teams without passcode', { platform: 'teams', native_meeting_id: '123456789012' }, /^passcode: /],
    ['bot_name of the wrong type', { ...googleMeetBot(), bot_name: 42 }, /^bot_name: /],
    ['empty bot_name', { ...googleMeetBot(), bot_name: '  ' }, /^bot_name: /],
    ['language of the wrong type', { ...googleMeetBot(), language: ['en'] }, /^language: /],
    ['language that is no code', { ...googleMeetBot(), language: 'English please' }, /^language: /],
    ['unknown task', { ...googleMeetBot(), task: 'summarize' }, /^task: /],
    [
      'meeting_url on another host',
      { ...googleMeetBot(), meeting_url: 'https://evil.example.com/abc-defg-hij' },
      /^meeting_url: /,
    ],
    [
      'meeting_url over http',
      { ...googleMeetBot(), meeting_url: 'http://meet.google.com/abc-defg-hij' },
      /^meeting_url: /,
    ],
    [
      'meeting_url for another meeting',
      { ...googleMeetBot(), meeting_url: 'https://meet.google.com/xyz-defg-hij' },
      /^meeting_url: /,
    ],
    [
      'meeting_url of the other platform',
      { ...teamsBot(), meeting_url: 'https://meet.google.com/abc-defg-hij' },
      /^meeting_url: /,
    ],
    [
      'a Zoom meeting_url naming another meeting',
      { platform: 'zoom', native_meeting_id: '854123698', meeting_url: 'https://acme.zoom.us/j/854123699' },
      /^meeting_url: /,
    ],
    [
      'a Zoom meeting_url on a look-alike host',
      {
        platform: 'zoom',
        native_meeting_id: '854123698',
        meeting_url: 'https://zoom.us.evil.io/j/854123698',
      },
      /^meeting_url: /,
    ],
    [
      'a Zoom meeting_url with another passcode',
      {
        platform: 'zoom',
        native_meeting_id: '854123698',
        passcode: 'a',
        meeting_url: 'https://zoom.us/j/854123698?pwd=b',
      },
      /^meeting_url: the passcode in the URL \(pwd\)/,
    ],
    ['meeting_url that is no URL', { ...googleMeetBot(), meeting_url: 'not a url' }, /^meeting_url: /],
    ['body that is an array', [googleMeetBot()], /^Request body: /],
    ['body that is a string', 'hello', /^Request body: /],
    ['body that is null', null, /^Request body: /],
  ])('rejects %s with a 400 naming the field', async (_label, body, message) => {
    const response = await api.request('POST', '/bots', { key: user.key, json: body });
    expect(response.status).toBe(400);
    expect(Object.keys(response.body)).toEqual(['error']);
    expect(response.body.error).toMatch(message);
  });

  it('rejects a body that is not JSON, and a wrong content type', async () => {
    const notJson = await api.request('POST', '/bots', {
      key: user.key,
      rawBody: '{"platform": "google_meet",',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body).toEqual({ error: 'Request body is not valid JSON' });

    const wrongType = await api.request('POST', '/bots', {
      key: user.key,
      rawBody: JSON.stringify(googleMeetBot()),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({ error: 'Content-Type must be application/json' });

    const empty = await api.request('POST', '/bots', {
      key: user.key,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/empty/);
  });

  it('rejects a body over the size limit with 413', async () => {
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: { ...googleMeetBot(), padding: 'x'.repeat(70_000) },
    });
    expect(response.status).toBe(413);
    expect(Object.keys(response.body)).toEqual(['error']);
  });

  it('accepts the simulator origin the operator allowed, over http', async () => {
    const id = nextMeetId();
    const response = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot(id, { meeting_url: `http://127.0.0.1:4100/${id}` }),
    });
    expect(response.status).toBe(201);
  });

  it('answers 409 for a second bot while the first is not finished, and writes nothing', async () => {
    const id = nextMeetId();
    expect((await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) })).status).toBe(201);
    const second = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
    expect(second.status).toBe(409);
    expect(Object.keys(second.body)).toEqual(['error']);
    const rows = await api.database.db('meetings').where({ user_id: user.id, native_meeting_id: id });
    expect(rows).toHaveLength(1);
  });

  it('runs a Create / Stop / Create cycle on the same meeting id', async () => {
    const id = nextMeetId();
    const first = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
    expect(first.status).toBe(201);
    const stop = await api.request('DELETE', `/bots/google_meet/${id}`, { key: user.key });
    expect(stop.status).toBe(202);
    const second = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.status).toBe('requested');

    const transcript = await api.request('GET', `/transcripts/google_meet/${id}`, { key: user.key });
    expect(transcript.body.id).toBe(second.body.id);
    const list = await api.request('GET', '/meetings', { key: user.key });
    const ids = list.body.meetings
      .filter((m: { native_meeting_id: string }) => m.native_meeting_id === id)
      .map((m: { id: number }) => m.id);
    expect(ids).toEqual([second.body.id, first.body.id]);
  });
});

describe('the concurrent-bot limit', () => {
  it('answers 429 with the spec message once the user has the maximum of bots in flight', async () => {
    const limited = await api.createUser({ maxConcurrentBots: 2 });
    expect(
      (await api.request('POST', '/bots', { key: limited.key, json: googleMeetBot('aaa-aaaa-aaa') })).status,
    ).toBe(201);
    expect(
      (await api.request('POST', '/bots', { key: limited.key, json: googleMeetBot('bbb-bbbb-bbb') })).status,
    ).toBe(201);
    const third = await api.request('POST', '/bots', {
      key: limited.key,
      json: googleMeetBot('ccc-cccc-ccc'),
    });
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: 'Too many concurrent bots' });

    // A finished bot frees its slot.
    expect((await api.request('DELETE', '/bots/google_meet/aaa-aaaa-aaa', { key: limited.key })).status).toBe(
      202,
    );
    expect(
      (await api.request('POST', '/bots', { key: limited.key, json: googleMeetBot('ccc-cccc-ccc') })).status,
    ).toBe(201);
  });

  it('never overshoots under 50 parallel creates', async () => {
    const limited = await api.createUser({ maxConcurrentBots: 5 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        api.request('POST', '/bots', { key: limited.key, json: teamsBot(String(1_000_000_000 + index)) }),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 429)).toHaveLength(45);
    const live = await api.database
      .db('meetings')
      .where({ user_id: limited.id })
      .whereNotIn('status', ['completed', 'failed']);
    expect(live).toHaveLength(5);
  });

  it('gives every one of 50 parallel creates of the same meeting one answer: one 201, the rest 409', async () => {
    const racer = await api.createUser({ maxConcurrentBots: 50 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        api.request('POST', '/bots', { key: racer.key, json: googleMeetBot('sam-emee-tin') }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(49);
  });

  it('a user with a maximum of 0 can start no bot', async () => {
    const none = await api.createUser({ maxConcurrentBots: 0 });
    const response = await api.request('POST', '/bots', { key: none.key, json: googleMeetBot() });
    expect(response.status).toBe(429);
    expect(response.body).toEqual({ error: 'Too many concurrent bots' });
  });
});

describe('languages the configured engine transcribes (the default, embedded: English only)', () => {
  const embeddedOnlyEnglish =
    'language: the embedded engine transcribes only en; set TRANSCRIPTION_ENGINE to openai or whisperlive for others';

  it('is 400 naming the supported languages for any other, and starts nothing', async () => {
    for (const language of ['de', 'pt-BR', 'xx']) {
      const id = nextMeetId();
      const response = await api.request('POST', '/bots', {
        key: user.key,
        json: googleMeetBot(id, { language }),
      });
      expect(response.status, language).toBe(400);
      expect(response.body).toEqual({ error: embeddedOnlyEnglish });
      expect(await api.database.db('meetings').where({ native_meeting_id: id }).first()).toBeUndefined();
    }
  });

  it('takes English in any spelling, no language, and translate (English to English)', async () => {
    for (const extra of [{ language: 'en' }, { language: 'en-GB' }, {}, { task: 'translate' }]) {
      const response = await api.request('POST', '/bots', {
        key: user.key,
        json: googleMeetBot(nextMeetId(), extra),
      });
      expect(response.status, JSON.stringify(extra)).toBe(201);
    }
  });

  it('refuses the same on PUT .../config, keeping the running bot as it was', async () => {
    const id = nextMeetId();
    const created = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
    await advanceMeeting(api.database.db, created.body.id, 'active');
    const response = await api.request('PUT', `/bots/google_meet/${id}/config`, {
      key: user.key,
      json: { language: 'fr' },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: embeddedOnlyEnglish });
    const row = await api.database.db('meetings').where({ id: created.body.id }).first();
    expect(row.language).toBeNull();
  });
});
