import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meetingHeaderJson } from '../../../shared/meetings/serialize.js';
import { findMeetingById } from '../../../shared/meetings/store.js';
import { segmentJson } from '../../../shared/transcripts/serialize.js';
import { listSegments, type SegmentUpsert, upsertSegments } from '../../../shared/transcripts/store.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { transitionMeeting } from '../../support/meetings.js';

// GET /transcripts and GET /meetings are built once per version of their data and kept: these
// tests hold them to the bytes the serializers write, and to every change, in any commit order.
let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser({ maxConcurrentBots: 20 });
});
afterAll(() => api?.close());

async function createMeeting(nativeId: string): Promise<number> {
  const response = await api.request('POST', '/bots', { key: user.key, json: googleMeetBot(nativeId) });
  expect(response.status).toBe(201);
  return response.body.id;
}

function segment(meetingId: number, id: string, overrides: Partial<SegmentUpsert> = {}): SegmentUpsert {
  return {
    meetingId,
    segmentId: id,
    start: 1,
    end: 2,
    text: 'hello',
    speaker: 'Ann',
    language: 'en',
    absoluteStartTime: new Date('2026-11-23T10:00:00.123Z'),
    absoluteEndTime: new Date('2026-11-23T10:00:01.456Z'),
    final: true,
    ...overrides,
  };
}

/** The answer as the serializers write it, from records. */
async function expectedTranscript(meetingId: number): Promise<string> {
  const meeting = (await findMeetingById(api.database.db, meetingId))!;
  const segments = await listSegments(api.database.db, meetingId);
  return JSON.stringify({ ...meetingHeaderJson(meeting), segments: segments.map(segmentJson) });
}

describe('GET /transcripts', () => {
  it('writes the same bytes as the segment serializer, whatever the text, times and numbers', async () => {
    const meetingId = await createMeeting('byt-esam-eee');
    const tricky = [
      'quotes " and \\ backslashes',
      'control \u0001\u0008\t\n\r\u001f characters',
      'emoji 😀 and accents é ü ß and CJK 会议',
      'line separators \u2028 \u2029 and DEL \u007f',
      '</script><script>alert(1)</script>',
      '',
    ];
    const segments = tricky.map((text, index) =>
      segment(meetingId, `t${index}`, {
        text,
        start: [0, 0.00001, 1e-7, 123.456, 7, 86_399.999][index]!,
        end: [0.5, 1.25, 2, 124, 8.125, 90_000][index]!,
        speaker: index % 2 === 0 ? null : `Speaker "${index}"`,
        language: index === 3 ? null : 'en',
        absoluteStartTime: new Date(Date.UTC(2026, 10, 23, 10, 0, index, [0, 1, 579, 999, 100, 10][index]!)),
        absoluteEndTime: new Date(Date.UTC(2026, 10, 23, 10, 0, index + 1, 5)),
      }),
    );
    await upsertSegments(api.database.db, segments);
    // Microseconds in the database are cut to milliseconds like Date does.
    await api.database.db.raw(
      "UPDATE transcript_segments SET absolute_start_time = absolute_start_time + interval '578 microseconds' WHERE meeting_id = ? AND segment_id = 't1'",
      [meetingId],
    );
    const response = await api.request('GET', '/transcripts/google_meet/byt-esam-eee', { key: user.key });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.text).toBe(await expectedTranscript(meetingId));
  });

  it('changes with every segment write and status change, and only then', async () => {
    const meetingId = await createMeeting('cha-nges-sss');
    const read = async () =>
      (await api.request('GET', '/transcripts/google_meet/cha-nges-sss', { key: user.key })).text;
    await upsertSegments(api.database.db, [segment(meetingId, 'a', { final: false, text: 'draft' })]);
    const first = await read();
    expect(await read()).toBe(first);
    await upsertSegments(api.database.db, [segment(meetingId, 'a', { final: true, text: 'final words' })]);
    const second = await read();
    expect(second).toContain('final words');
    expect(second).toBe(await expectedTranscript(meetingId));
    await transitionMeeting(api.database.db, meetingId, { to: 'failed', source: 'test' });
    const third = await read();
    expect(JSON.parse(third).status).toBe('failed');
    expect(third).toBe(await expectedTranscript(meetingId));
  });

  it('sees a write that commits after a later one (commit order is not write order)', async () => {
    const meetingId = await createMeeting('out-ofor-der');
    await upsertSegments(api.database.db, [segment(meetingId, 'a'), segment(meetingId, 'b', { start: 3 })]);
    const read = async () =>
      (await api.request('GET', '/transcripts/google_meet/out-ofor-der', { key: user.key })).text;
    await read();
    // A takes its change number first, B after it, B commits first, and the answer is read between.
    const slow = await api.database.db.transaction();
    await upsertSegments(slow, [segment(meetingId, 'a', { text: 'slow writer' })]);
    await upsertSegments(api.database.db, [segment(meetingId, 'b', { start: 3, text: 'fast writer' })]);
    const between = await read();
    expect(between).toContain('fast writer');
    expect(between).not.toContain('slow writer');
    await slow.commit();
    const after = await read();
    expect(after).toContain('slow writer');
    expect(after).toBe(await expectedTranscript(meetingId));
  });
});

describe('GET /meetings', () => {
  it('changes with every meeting change, in any commit order, and keeps its bytes', async () => {
    const other = await api.createUser();
    const read = async () => (await api.request('GET', '/meetings', { key: other.key })).text;
    const make = async (id: string) =>
      (await api.request('POST', '/bots', { key: other.key, json: googleMeetBot(id) })).body.id as number;
    const first = await make('lis-tone-aaa');
    const second = await make('lis-ttwo-bbb');
    const before = await read();
    expect(JSON.parse(before).meetings).toHaveLength(2);

    const slow = await api.database.db.transaction();
    await transitionMeeting(slow, first, { to: 'joining', source: 'test' });
    await transitionMeeting(api.database.db, second, { to: 'joining', source: 'test' });
    const between = JSON.parse(await read()).meetings;
    expect(between.map((meeting: { status: string }) => meeting.status)).toEqual(['joining', 'requested']);
    await slow.commit();
    const after = JSON.parse(await read()).meetings;
    expect(after.map((meeting: { status: string }) => meeting.status)).toEqual(['joining', 'joining']);

    await api.request('PATCH', '/meetings/google_meet/lis-tone-aaa', {
      key: other.key,
      json: { data: { name: 'renamed' } },
    });
    expect(JSON.parse(await read()).meetings[1].data).toEqual({ name: 'renamed' });
    await api.request('DELETE', '/bots/google_meet/lis-ttwo-bbb', { key: other.key });
    expect(JSON.parse(await read()).meetings[0].status).toBe('completed');
  });
});
