import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SegmentUpsert, upsertSegments } from '../../../shared/transcripts/store.js';
import {
  googleMeetBot,
  ISO_UTC,
  startTestApi,
  type TestApi,
  type TestUser,
  teamsBot,
} from '../../support/api.js';
import { advanceMeeting, transitionMeeting } from '../../support/meetings.js';
import { segmentRow } from '../../support/segments.js';

let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser({ maxConcurrentBots: 50 });
});
afterAll(() => api.close());

/** A final segment by Alice, 1.5 s long (see segmentRow); `extra` overrides any field. */
function segment(
  meetingId: number,
  segmentId: string,
  start: number,
  text: string,
  extra: Partial<SegmentUpsert> = {},
): SegmentUpsert {
  return segmentRow(meetingId, segmentId, start, start + 1.5, text, 'Alice', extra);
}

describe('GET /meetings', () => {
  it('lists every status, newest first, with the data callers stored', async () => {
    const listUser = await api.createUser({ maxConcurrentBots: 10 });
    const ids: number[] = [];
    for (const nativeId of ['111000111', '222000222', '333000333']) {
      const created = await api.request('POST', '/bots', { key: listUser.key, json: teamsBot(nativeId) });
      ids.push(created.body.id);
    }
    await transitionMeeting(api.database.db, ids[0]!, { to: 'failed', source: 'test' });
    await advanceMeeting(api.database.db, ids[1]!, 'active');
    await api.request('PATCH', '/meetings/teams/222000222', {
      key: listUser.key,
      json: { data: { name: 'Planning', participants: ['A'] } },
    });

    const response = await api.request('GET', '/meetings', { key: listUser.key });
    expect(response.status).toBe(200);
    expect(response.body.meetings.map((m: { id: number }) => m.id)).toEqual([...ids].reverse());
    expect(response.body.meetings.map((m: { status: string }) => m.status)).toEqual([
      'requested',
      'active',
      'failed',
    ]);
    expect(response.body.meetings[1].data).toEqual({ name: 'Planning', participants: ['A'] });
    for (const meeting of response.body.meetings) expect(meeting.created_at).toMatch(ISO_UTC);
  });

  it('pages with limit and offset, and rejects bad values', async () => {
    const pageUser = await api.createUser({ maxConcurrentBots: 10 });
    for (const nativeId of ['100', '200', '300']) {
      await api.request('POST', '/bots', { key: pageUser.key, json: teamsBot(nativeId) });
    }
    const page = await api.request('GET', '/meetings?limit=2&offset=1', { key: pageUser.key });
    expect(page.body.meetings.map((m: { native_meeting_id: string }) => m.native_meeting_id)).toEqual([
      '200',
      '100',
    ]);
    const bad = await api.request('GET', '/meetings?limit=abc', { key: pageUser.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^limit: /);
  });
});

describe('GET /meetings/{id}', () => {
  it('returns the meeting, and 404 Meeting not found otherwise', async () => {
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('get-meet-ing'),
    });
    const response = await api.request('GET', `/meetings/${created.body.id}`, { key: user.key });
    expect(response.status).toBe(200);
    // The spec's meeting, its recordings (none: no bot recorded it) and participants (no bot saw any).
    expect(response.body).toEqual({ ...created.body, recordings: [], participants: [] });
    const missing = await api.request('GET', '/meetings/999999', { key: user.key });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Meeting not found' });
    const huge = await api.request('GET', '/meetings/99999999999999', { key: user.key });
    expect(huge.status).toBe(404);
    const notNumber = await api.request('GET', '/meetings/abc', { key: user.key });
    expect(notNumber.status).toBe(400);
    expect(notNumber.body.error).toMatch(/^id: /);
  });
});

describe('PATCH /meetings/{platform}/{native_meeting_id}', () => {
  it('changes only the members given and answers with the meeting after the update', async () => {
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('pat-chme-ett'),
    });
    const first = await api.request('PATCH', '/meetings/google_meet/pat-chme-ett', {
      key: user.key,
      json: { data: { name: 'Weekly', notes: 'agenda', participants: ['Ann', 'Bo'], languages: ['en'] } },
    });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      id: created.body.id,
      platform: 'google_meet',
      native_meeting_id: 'pat-chme-ett',
      status: 'requested',
      data: { name: 'Weekly', notes: 'agenda', participants: ['Ann', 'Bo'], languages: ['en'] },
    });

    const second = await api.request('PATCH', '/meetings/google_meet/pat-chme-ett', {
      key: user.key,
      json: { data: { notes: 'new notes', participants: ['Cy'] } },
    });
    expect(second.body.data).toEqual({
      name: 'Weekly',
      notes: 'new notes',
      participants: ['Cy'],
      languages: ['en'],
    });

    const removal = await api.request('PATCH', '/meetings/google_meet/pat-chme-ett', {
      key: user.key,
      json: { data: { languages: null, custom: { team: 'core' } } },
    });
    expect(removal.body.data).toEqual({
      name: 'Weekly',
      notes: 'new notes',
      participants: ['Cy'],
      custom: { team: 'core' },
    });

    const empty = await api.request('PATCH', '/meetings/google_meet/pat-chme-ett', {
      key: user.key,
      json: { data: {} },
    });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual(removal.body.data);

    const stored = await api.request('GET', `/meetings/${created.body.id}`, { key: user.key });
    expect(stored.body.data).toEqual(removal.body.data);
  });

  it.each([
    ['name as a number', { data: { name: 5 } }, /^data\.name: /],
    ['notes as an object', { data: { notes: {} } }, /^data\.notes: /],
    ['participants as a string', { data: { participants: 'Ann' } }, /^data\.participants: /],
    ['participants with a number', { data: { participants: ['Ann', 3] } }, /^data\.participants\[1\]: /],
    ['languages as a string', { data: { languages: 'en' } }, /^data\.languages: /],
    ['no data member', { name: 'x' }, /^data: /],
    ['data as an array', { data: ['x'] }, /^data: /],
  ])('rejects %s and changes nothing', async (_label, body, message) => {
    await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('typ-esch-eck') });
    await api.request('PATCH', '/meetings/google_meet/typ-esch-eck', {
      key: user.key,
      json: { data: { name: 'Kept' } },
    });
    const response = await api.request('PATCH', '/meetings/google_meet/typ-esch-eck', {
      key: user.key,
      json: body,
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatch(message);
    const after = await api.request('GET', '/transcripts/google_meet/typ-esch-eck', { key: user.key });
    const meeting = await api.request('GET', `/meetings/${after.body.id}`, { key: user.key });
    expect(meeting.body.data).toEqual({ name: 'Kept' });
  });

  it('acts on the latest meeting with that id and is 404 for an unknown one', async () => {
    const first = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('lat-estm-eet') });
    await api.request('DELETE', '/bots/google_meet/lat-estm-eet', { key: user.key });
    const second = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot('lat-estm-eet') });
    const patched = await api.request('PATCH', '/meetings/google_meet/lat-estm-eet', {
      key: user.key,
      json: { data: { name: 'Second' } },
    });
    expect(patched.body.id).toBe(second.body.id);
    const untouched = await api.request('GET', `/meetings/${first.body.id}`, { key: user.key });
    expect(untouched.body.data).toEqual({});

    const missing = await api.request('PATCH', '/meetings/google_meet/zzz-zzzz-zzz', {
      key: user.key,
      json: { data: { name: 'x' } },
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Meeting not found' });
  });
});

describe('GET /transcripts/{platform}/{native_meeting_id}', () => {
  it('returns the meeting fields and its segments in chronological order', async () => {
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('tra-nscr-ipt'),
    });
    const meetingId = created.body.id;
    await advanceMeeting(api.database.db, meetingId, 'active');
    // Stored out of order, as a bot's late or re-sent segments arrive.
    await upsertSegments(api.database.db, [
      segment(meetingId, 'c', 9, 'third'),
      segment(meetingId, 'a', 1, 'first', { speaker: 'Bob' }),
      segment(meetingId, 'b', 4.25, 'second', { final: false, speaker: null, language: null }),
    ]);

    const response = await api.request('GET', '/transcripts/google_meet/tra-nscr-ipt', { key: user.key });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual([
      'end_time',
      'id',
      'native_meeting_id',
      'platform',
      'segments',
      'start_time',
      'status',
    ]);
    expect(response.body).toMatchObject({
      id: meetingId,
      platform: 'google_meet',
      native_meeting_id: 'tra-nscr-ipt',
      status: 'active',
      end_time: null,
    });
    expect(response.body.start_time).toMatch(ISO_UTC);
    expect(response.body.segments.map((s: { text: string }) => s.text)).toEqual(['first', 'second', 'third']);
    const [first, second] = response.body.segments;
    expect(Object.keys(first).sort()).toEqual(
      [
        'absolute_end_time',
        'absolute_start_time',
        'created_at',
        'end',
        'language',
        'speaker',
        'start',
        'text',
      ].sort(),
    );
    expect(first).toMatchObject({
      start: 1,
      end: 2.5,
      speaker: 'Bob',
      language: 'en',
      absolute_start_time: '2026-11-22T10:00:01.000Z',
    });
    expect(first.created_at).toMatch(ISO_UTC);
    expect(second).toMatchObject({ start: 4.25, speaker: 'Unknown speaker', language: 'und' });
  });

  it('updates a mutable segment in place and keeps a final one final', async () => {
    const created = await api.request('POST', '/bots', {
      key: user.key,
      json: googleMeetBot('mut-able-seg'),
    });
    const meetingId = created.body.id;
    await upsertSegments(api.database.db, [segment(meetingId, 'x', 2, 'hel', { final: false })]);
    await upsertSegments(api.database.db, [segment(meetingId, 'x', 2, 'hello there', { final: true })]);
    await upsertSegments(api.database.db, [segment(meetingId, 'x', 2, 'stale copy', { final: false })]);
    const response = await api.request('GET', '/transcripts/google_meet/mut-able-seg', { key: user.key });
    expect(response.body.segments.map((s: { text: string }) => s.text)).toEqual(['hello there']);
  });

  it('is 404 Meeting not found for an unknown meeting', async () => {
    const response = await api.request('GET', '/transcripts/teams/5550001', { key: user.key });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Meeting not found' });
  });
});

describe('DELETE /meetings/{platform}/{native_meeting_id}', () => {
  it('refuses while a bot runs, then deletes the finished meeting with its transcript', async () => {
    const created = await api.request('POST', '/bots', { key: user.key, json: teamsBot('777000777') });
    const meetingId = created.body.id;
    await upsertSegments(api.database.db, [segment(meetingId, 'a', 1, 'to be deleted')]);

    const refused = await api.request('DELETE', '/meetings/teams/777000777', { key: user.key });
    expect(refused.status).toBe(409);
    expect(Object.keys(refused.body)).toEqual(['error']);
    expect(await api.database.db('transcript_segments').where({ meeting_id: meetingId })).toHaveLength(1);

    await api.request('DELETE', '/bots/teams/777000777', { key: user.key });
    const deleted = await api.request('DELETE', '/meetings/teams/777000777', { key: user.key });
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted_meeting_ids).toEqual([meetingId]);
    expect(await api.database.db('transcript_segments').where({ meeting_id: meetingId })).toHaveLength(0);
    expect(await api.database.db('meeting_status_transitions').where({ meeting_id: meetingId })).toHaveLength(
      0,
    );
    expect((await api.request('GET', `/meetings/${meetingId}`, { key: user.key })).status).toBe(404);
    expect((await api.request('GET', '/transcripts/teams/777000777', { key: user.key })).status).toBe(404);
    expect((await api.request('DELETE', '/meetings/teams/777000777', { key: user.key })).status).toBe(404);
  });
});

describe('unknown routes and methods', () => {
  it('answer JSON errors, never HTML', async () => {
    const unknown = await api.request('GET', '/nothing-here', { key: user.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'Not found' });
    expect(unknown.headers.get('content-type')).toMatch(/application\/json/);

    const wrongMethod = await api.request('POST', '/meetings', { key: user.key, json: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual({ error: 'Method not allowed' });
    expect(wrongMethod.headers.get('allow')).toMatch(/GET/);
  });
});
