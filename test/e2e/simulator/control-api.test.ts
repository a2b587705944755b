import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPagesDir, readAsset } from '../../../simulator/assets.js';
import { SimulatorApiError, SimulatorClient } from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';

describe('simulator: control API', () => {
  let simulator: Simulator;
  let client: SimulatorClient;

  beforeAll(async () => {
    simulator = await createSimulator();
    client = new SimulatorClient(simulator.url);
  });

  afterAll(async () => {
    await simulator?.close();
  });

  async function failure(promise: Promise<unknown>): Promise<SimulatorApiError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SimulatorApiError);
    return error as SimulatorApiError;
  }

  it('creates meetings with generated ids, a Teams passcode and distinct voices', async () => {
    const teams = await client.createMeeting({
      platform: 'teams',
      participants: [
        { name: 'Alice', utterances: [{ at: 1, text: 'Hello there.' }] },
        { name: 'Bob', utterances: [{ at: 3, text: 'Hello Alice.' }] },
      ],
    });
    expect(teams.id).toMatch(/^[0-9]{9,20}$/);
    expect(teams.passcode).toMatch(/^[A-Za-z0-9]{4,20}$/);
    expect(teams.url).toBe(`${simulator.url}/meet/${teams.id}?p=${teams.passcode}`);
    expect(teams.audio.mode).toBe('mixed');
    expect(new Set(teams.participants.map((p) => p.voice)).size).toBe(2);
    expect(teams.utterances.map((u) => [u.speaker, u.status])).toEqual([
      ['Alice', 'scheduled'],
      ['Bob', 'scheduled'],
    ]);
    expect(teams.utterances[0]!.durationSeconds).toBeGreaterThan(0.3);
    expect(teams.bot.state).toBe('none');

    const meet = await client.createMeeting({ platform: 'google_meet', id: 'abc-defg-hij' });
    expect(meet.url).toBe(`${simulator.url}/abc-defg-hij`);
    expect(meet.audio.mode).toBe('slots');
    expect((await client.listMeetings()).map((m) => m.id)).toEqual(
      expect.arrayContaining([teams.id, meet.id]),
    );
    expect(
      (await failure(client.createMeeting({ platform: 'google_meet', id: 'abc-defg-hij' }))).status,
    ).toBe(409);
  });

  it('explains bad input, unplayable scripts, unknown meetings and impossible actions', async () => {
    const bad = await failure(client.createMeeting({ platform: 'google_meet', id: 'ABC' }));
    expect(bad.status).toBe(400);
    expect(bad.message).toMatch(/id: must look like xxx-xxxx-xxx/);

    const unplayable = await failure(
      client.createMeeting({
        platform: 'google_meet',
        participants: [
          { name: 'A', leaveAt: 1, utterances: [{ at: 0.5, text: 'a sentence longer than half a second' }] },
        ],
      }),
    );
    expect(unplayable.status).toBe(422);
    expect(unplayable.details).toEqual([expect.stringMatching(/after leaving at 1s/)]);

    expect((await failure(client.getMeeting('zzz-zzzz-zzz'))).status).toBe(404);
    expect((await failure(client.getMeeting('../etc'))).status).toBe(400);

    const meeting = await client.createMeeting({ platform: 'google_meet' });
    const noBot = await failure(client.admit(meeting.id));
    expect(noBot.status).toBe(409);
    expect(noBot.message).toMatch(/it is none/);
    expect((await failure(client.removeBot(meeting.id))).status).toBe(409);
  });

  it('plays real recordings by name, with their transcripts as the utterance text', async () => {
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      participants: [
        {
          name: 'Reader',
          utterances: [
            { at: 1, clip: 'librivox/sense_and_sensibility_01_austen_64kb-0880' },
            { at: 6, text: 'And a line in a synthetic voice.' },
          ],
        },
      ],
    });
    expect(meeting.utterances.map((u) => u.text)).toEqual([
      'he was not an ill disposed young man',
      'And a line in a synthetic voice.',
    ]);
    expect(meeting.utterances.map((u) => u.clip)).toEqual([
      'librivox/sense_and_sensibility_01_austen_64kb-0880',
      null,
    ]);
    // The WAV's own length (47,840 samples at 16 kHz), not a synthesized sentence's.
    expect(meeting.utterances[0]!.durationSeconds).toBeCloseTo(2.99, 2);

    const unknown = await failure(
      client.createMeeting({
        platform: 'google_meet',
        participants: [{ name: 'A', utterances: [{ at: 1, clip: 'librivox/no-such-clip' }] }],
      }),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.message).toMatch(/utterances\.0\.clip: no recording 'librivox\/no-such-clip'/);
    const unknownSet = await failure(
      client.createMeeting({
        platform: 'google_meet',
        participants: [{ name: 'A', utterances: [{ at: 1, clip: 'podcasts/episode-1' }] }],
      }),
    );
    expect(unknownSet.message).toMatch(
      /unknown recording set 'podcasts' \(known: librivox, cards, asterisk\)/,
    );
    for (const clip of ['/etc/passwd', 'librivox/../../etc/passwd', 'librivox/.hidden', 'librivox']) {
      const path = await failure(
        client.createMeeting({
          platform: 'google_meet',
          participants: [{ name: 'A', utterances: [{ at: 1, clip }] }],
        }),
      );
      expect(path.status, clip).toBe(400);
      expect(path.message, clip).toMatch(/clip: must name a recording as <set>\/<name>/);
    }
    const both = await failure(
      client.createMeeting({
        platform: 'google_meet',
        participants: [{ name: 'A', utterances: [{ at: 1, text: 'hello', clip: 'cards/001' }] }],
      }),
    );
    expect(both.message).toMatch(/give either text \(spoken by the voice\) or clip/);
  });

  it('ends a meeting once, and deletes it', async () => {
    const meeting = await client.createMeeting({ platform: 'teams', participants: [{ name: 'Alice' }] });
    const ended = await client.endMeeting(meeting.id);
    expect(ended.status).toBe('ended');
    expect(ended.participants[0]!.present).toBe(false);
    expect((await failure(client.endMeeting(meeting.id))).status).toBe(409);
    await client.deleteMeeting(meeting.id);
    expect((await failure(client.getMeeting(meeting.id))).status).toBe(404);
  });

  it('says what is missing, with a 503 and never a 500, when this machine cannot speak scripted lines', async () => {
    const withoutFlite = await createSimulator({
      speechCommand: 'flite-that-is-not-installed',
      speechCacheDir: mkdtempSync(join(tmpdir(), 'meetbot-no-speech-')),
    });
    try {
      const error = await failure(
        new SimulatorClient(withoutFlite.url).createMeeting({
          platform: 'google_meet',
          participants: [{ name: 'Alice', utterances: [{ at: 1, text: 'Nobody can say this here.' }] }],
        }),
      );
      expect(error.status).toBe(503);
      expect(error.message).toMatch(/flite-that-is-not-installed is not installed.*apt-get install flite/);
    } finally {
      await withoutFlite.close();
    }
  });

  it('serves the meeting pages at the platforms’ URL shapes', async () => {
    const meet = await fetch(`${simulator.url}/abc-defg-hij`);
    expect(meet.headers.get('content-type')).toMatch(/text\/html/);
    expect(await meet.text()).toContain('/assets/google-meet/meet.js');
    const teams = await fetch(`${simulator.url}/meet/123456789012?p=abc123`);
    expect(await teams.text()).toContain('/assets/teams/teams.js');
    const launch = await fetch(`${simulator.url}/light-meetings/launch?meetingCode=123456789012&anon=true`);
    expect(await launch.text()).toContain('/assets/teams/teams.js');
    expect((await fetch(`${simulator.url}/assets/teams/nothing.js`)).status).toBe(404);
    // URLs normalize "..", so the guard is checked where a raw path could reach it.
    const pagesDir = findPagesDir();
    expect(await readAsset(pagesDir, '../../package.json')).toBeUndefined();
    expect(await readAsset(pagesDir, 'teams/teams.js')).toMatchObject({
      contentType: expect.stringMatching(/javascript/),
    });
  });
});
