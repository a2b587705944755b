import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botCommand } from '../../../shared/contract/commands.js';
import { JobNames } from '../../../shared/contract/jobs.js';
import { decodeStreamEntry } from '../../../shared/contract/stream-codec.js';
import { botCommandsStream } from '../../../shared/contract/streams.js';
import { listTransitions } from '../../../shared/meetings/transitions-store.js';
import {
  googleMeetBot,
  ISO_UTC,
  startTestApi,
  type TestApi,
  type TestUser,
  teamsBot,
} from '../../support/api.js';
import { advanceMeeting, transitionMeeting } from '../../support/meetings.js';

let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  // An engine that transcribes German and French, which these tests switch bots to.
  api = await startTestApi({
    env: { TRANSCRIPTION_ENGINE: 'whisperlive', WHISPERLIVE_URL: 'ws://127.0.0.1:9090' },
  });
  user = await api.createUser({ maxConcurrentBots: 50 });
});
afterAll(() => api.close());

async function createMeet(id: string): Promise<number> {
  const response = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(id) });
  expect(response.status).toBe(201);
  return response.body.id;
}

describe('DELETE /bots/{platform}/{native_meeting_id}', () => {
  it('completes an active meeting at once and queues the stop with its container', async () => {
    const meetingId = await createMeet('sto-pact-ive');
    await advanceMeeting(api.database.db, meetingId, 'active', 'container-123');

    const response = await api.request('DELETE', '/bots/google_meet/sto-pact-ive', { key: user.key });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ id: meetingId, status: 'completed', bot_container_id: null });
    expect(response.body.end_time).toMatch(ISO_UTC);
    expect(response.body.start_time).toMatch(ISO_UTC);

    const job = await api.queues.control.getJob(`stop-${meetingId}`);
    expect(job?.name).toBe(JobNames.stopBot);
    expect(job?.data).toMatchObject({ meetingId, botContainerId: 'container-123', platform: 'google_meet' });

    const transitions = await listTransitions(api.database.db, meetingId);
    expect(transitions.at(-1)).toMatchObject({
      from: 'active',
      to: 'completed',
      source: 'api',
      reason: 'stopped',
    });

    const meeting = await api.request('GET', `/meetings/${meetingId}`, { key: user.key });
    expect(meeting.body.status).toBe('completed');
  });

  it.each(['requested', 'joining', 'awaiting_admission'] as const)(
    'stops a meeting still %s',
    async (status) => {
      const id = `sto-p${status.slice(0, 3)}-abc`;
      const meetingId = await createMeet(id);
      if (status !== 'requested') await advanceMeeting(api.database.db, meetingId, status);
      const response = await api.request('DELETE', `/bots/google_meet/${id}`, { key: user.key });
      expect(response.status).toBe(202);
      expect(response.body.status).toBe('completed');
      expect(response.body.start_time).toBeNull();
    },
  );

  it('is 404 Bot not found for a finished meeting, an unknown one, and a second stop', async () => {
    const meetingId = await createMeet('fin-ishe-dmm');
    await transitionMeeting(api.database.db, meetingId, { to: 'failed', source: 'test', reason: 'crashed' });
    for (const path of [
      '/bots/google_meet/fin-ishe-dmm',
      '/bots/google_meet/zzz-zzzz-zzz',
      '/bots/teams/123456789',
    ]) {
      const response = await api.request('DELETE', path, { key: user.key });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Bot not found' });
    }
    await createMeet('twi-cest-opp');
    expect((await api.request('DELETE', '/bots/google_meet/twi-cest-opp', { key: user.key })).status).toBe(
      202,
    );
    expect((await api.request('DELETE', '/bots/google_meet/twi-cest-opp', { key: user.key })).status).toBe(
      404,
    );
  });

  it('is 400 naming the field for an unknown platform in the path', async () => {
    const response = await api.request('DELETE', '/bots/webex/abc-defg-hij', { key: user.key });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(/^platform: /);
  });

  it('never moves a finished meeting back: a late bot event after the stop changes nothing', async () => {
    const meetingId = await createMeet('lat-eeve-ntt');
    await advanceMeeting(api.database.db, meetingId, 'awaiting_admission');
    await api.request('DELETE', '/bots/google_meet/lat-eeve-ntt', { key: user.key });
    expect(
      await transitionMeeting(api.database.db, meetingId, { to: 'active', source: 'bot' }),
    ).toBeUndefined();
    expect(
      await transitionMeeting(api.database.db, meetingId, { to: 'failed', source: 'bot' }),
    ).toBeUndefined();
    const row = await api.database.db('meetings').where({ id: meetingId }).first();
    expect(row.status).toBe('completed');
  });
});

describe('PUT /bots/{platform}/{native_meeting_id}/config', () => {
  it('stores the change for an active bot and sends it on', async () => {
    const meetingId = await createMeet('rec-onfi-gme');
    await advanceMeeting(api.database.db, meetingId, 'active');
    const response = await api.request('PUT', '/bots/google_meet/rec-onfi-gme/config', {
      key: user.key,
      json: { language: 'de', task: 'translate', bot_name: 'Renamed' },
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({
      meeting_id: meetingId,
      language: 'de',
      task: 'translate',
      bot_name: 'Renamed',
    });
    const row = await api.database.db('meetings').where({ id: meetingId }).first();
    expect(row).toMatchObject({ language: 'de', task: 'translate', bot_name: 'Renamed' });

    // Straight to the bot's durable command stream, which it reads from its first entry.
    const entries = await api.redis.xrange(botCommandsStream(api.prefix, meetingId), '-', '+');
    const commands = entries.map(([, fields]) => decodeStreamEntry(botCommand, fields));
    expect(commands).toEqual([
      {
        ok: true,
        value: {
          type: 'reconfigure',
          language: 'de',
          task: 'translate',
          botName: 'Renamed',
          issuedAt: expect.any(String),
        },
      },
    ]);
  });

  it("is 400 naming the engine's languages for one it can't transcribe, and changes nothing", async () => {
    const meetingId = await createMeet('lan-guag-exx');
    await advanceMeeting(api.database.db, meetingId, 'active');
    const response = await api.request('PUT', '/bots/google_meet/lan-guag-exx/config', {
      key: user.key,
      json: { language: 'xx', bot_name: 'Renamed' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(
      /^language: the whisperlive engine does not transcribe 'xx'; it transcribes af, am, ar, /,
    );
    expect(response.body.error).toMatch(/\bde\b.*\ben\b.*\bfr\b/);
    const row = await api.database.db('meetings').where({ id: meetingId }).first();
    expect(row).toMatchObject({ language: null, bot_name: 'Test Bot' });
  });

  it('changes only what was given', async () => {
    const meetingId = await createMeet('onl-ygiv-enn');
    await advanceMeeting(api.database.db, meetingId, 'active');
    await api.request('PUT', '/bots/google_meet/onl-ygiv-enn/config', {
      key: user.key,
      json: { language: 'fr' },
    });
    const row = await api.database.db('meetings').where({ id: meetingId }).first();
    expect(row).toMatchObject({ language: 'fr', task: 'transcribe', bot_name: 'Test Bot' });
  });

  it.each(['requested', 'joining', 'awaiting_admission'] as const)(
    'is 404 Bot not found while %s',
    async (status) => {
      const id = `not-a${status.slice(0, 3)}-cti`;
      const meetingId = await createMeet(id);
      if (status !== 'requested') await advanceMeeting(api.database.db, meetingId, status);
      const response = await api.request('PUT', `/bots/google_meet/${id}/config`, {
        key: user.key,
        json: { language: 'de' },
      });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Bot not found' });
    },
  );

  it('is 404 for a finished or unknown meeting', async () => {
    const meetingId = await createMeet('don-econ-fig');
    await advanceMeeting(api.database.db, meetingId, 'active');
    await api.request('DELETE', '/bots/google_meet/don-econ-fig', { key: user.key });
    for (const path of ['/bots/google_meet/don-econ-fig/config', '/bots/google_meet/unk-nown-mmm/config']) {
      const response = await api.request('PUT', path, { key: user.key, json: { language: 'de' } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'Bot not found' });
    }
  });

  it.each([
    ['an unknown task', { task: 'summarize' }, /^task: /],
    ['a language of the wrong type', { language: 5 }, /^language: /],
    ['a bot_name of the wrong type', { bot_name: false }, /^bot_name: /],
    ['nothing to change', {}, /at least one of language, task, bot_name/],
  ])('rejects %s with 400', async (_label, body, message) => {
    const meetingId = await createMeet('val-idat-ion');
    await advanceMeeting(api.database.db, meetingId, 'active');
    const response = await api.request('PUT', '/bots/google_meet/val-idat-ion/config', {
      key: user.key,
      json: body,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    await api.request('DELETE', '/bots/google_meet/val-idat-ion', { key: user.key });
  });
});

describe('GET /bots/status', () => {
  it('lists the non-terminal meetings with a string container id', async () => {
    const statusUser = await api.createUser({ maxConcurrentBots: 10 });
    const requested = await api.request('POST', '/bots', {
      key: statusUser.key,
      json: teamsBot('111111111'),
    });
    const active = await api.request('POST', '/bots', { key: statusUser.key, json: teamsBot('222222222') });
    const finished = await api.request('POST', '/bots', { key: statusUser.key, json: teamsBot('333333333') });
    await advanceMeeting(api.database.db, active.body.id, 'active', 'container-xyz');
    await api.request('DELETE', '/bots/teams/333333333', { key: statusUser.key });

    const response = await api.request('GET', '/bots/status', { key: statusUser.key });
    expect(response.status).toBe(200);
    expect(response.body.running_bots).toHaveLength(2);
    expect(response.body.running_bots).toEqual(
      expect.arrayContaining([
        {
          container_id: '',
          meeting_id: requested.body.id,
          platform: 'teams',
          native_meeting_id: '111111111',
        },
        {
          container_id: 'container-xyz',
          meeting_id: active.body.id,
          platform: 'teams',
          native_meeting_id: '222222222',
        },
      ]),
    );
    expect(response.body.running_bots.map((bot: { meeting_id: number }) => bot.meeting_id)).not.toContain(
      finished.body.id,
    );
  });
});

describe('GET /meetings/{id}/events', () => {
  it('lists every recorded transition, oldest first, with time, source, reason and detail', async () => {
    const meetingId = await createMeet('eve-ntsl-ist');
    await advanceMeeting(api.database.db, meetingId, 'active');
    await api.request('DELETE', '/bots/google_meet/eve-ntsl-ist', { key: user.key });

    const response = await api.request('GET', `/meetings/${meetingId}/events`, { key: user.key });
    expect(response.status).toBe(200);
    expect(response.body.meeting_id).toBe(meetingId);
    expect(
      response.body.events.map(
        (e: { from: string | null; to: string; source: string; reason: string | null }) => [
          e.from,
          e.to,
          e.source,
          e.reason,
        ],
      ),
    ).toEqual([
      [null, 'requested', 'api', 'bot requested'],
      ['requested', 'joining', 'test', null],
      ['joining', 'awaiting_admission', 'test', null],
      ['awaiting_admission', 'active', 'test', null],
      ['active', 'completed', 'api', 'stopped'],
    ]);
    for (const event of response.body.events) {
      expect(event.at).toMatch(ISO_UTC);
      expect(event).toHaveProperty('detail');
    }
    const ats = response.body.events.map((e: { at: string }) => Date.parse(e.at));
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
  });

  it('is 404 Meeting not found for an unknown meeting and 400 for a non-numeric id', async () => {
    expect((await api.request('GET', '/meetings/999999/events', { key: user.key })).body).toEqual({
      error: 'Meeting not found',
    });
    expect((await api.request('GET', '/meetings/abc/events', { key: user.key })).status).toBe(400);
  });
});
