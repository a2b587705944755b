import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meetingHeaderJson } from '../../../shared/meetings/serialize.js';
import { findMeetingById } from '../../../shared/meetings/store.js';
import { segmentJson } from '../../../shared/transcripts/serialize.js';
import { listSegments, type SegmentUpsert, upsertSegments } from '../../../shared/transcripts/store.js';
import { googleMeetBot, startTestApi, type TestApi, type TestUser, teamsBot } from '../../support/api.js';
import { transitionMeeting } from '../../support/meetings.js';
import { segmentRow } from '../../support/segments.js';

// GET /transcripts in its text formats (?format= or Accept), through the real app and Postgres.
let api: TestApi;
let alice: TestUser;
let bob: TestUser;
let meetingId: number;
const PATH = '/transcripts/google_meet/exp-orts-aaa';

/** A final segment of this file's meeting (see segmentRow). */
function segment(
  id: string,
  start: number,
  end: number,
  text: string,
  speaker: string | null,
): SegmentUpsert {
  return segmentRow(meetingId, id, start, end, text, speaker);
}

const TXT = [
  '[00:00:01] Alice: Hello everyone.',
  '[00:01:02] Bob <B>: Fish & chips --> two lines',
  '[00:01:05] Nobody named this one.',
  '[25:00:00] Alice: Still here.',
  '',
].join('\n');

const SRT = [
  '1',
  '00:00:01,000 --> 00:00:02,500',
  'Alice: Hello everyone.',
  '',
  '2',
  '00:01:02,000 --> 00:01:04,000',
  'Bob ＜B＞: Fish & chips --＞ two lines',
  '',
  '3',
  '00:01:05,000 --> 00:01:07,000',
  'Nobody named this one.',
  '',
  '4',
  '25:00:00,000 --> 25:00:01,000',
  'Alice: Still here.',
  '',
].join('\n');

const VTT = [
  'WEBVTT',
  '',
  '1',
  '00:00:01.000 --> 00:00:02.500',
  '<v Alice>Hello everyone.</v>',
  '',
  '2',
  '00:01:02.000 --> 00:01:04.000',
  '<v Bob &lt;B&gt;>Fish &amp; chips --&gt; two lines</v>',
  '',
  '3',
  '00:01:05.000 --> 00:01:07.000',
  'Nobody named this one.',
  '',
  '4',
  '25:00:00.000 --> 25:00:01.000',
  '<v Alice>Still here.</v>',
  '',
].join('\n');

beforeAll(async () => {
  api = await startTestApi();
  alice = await api.createUser();
  bob = await api.createUser();
  const created = await api.request('POST', '/bots', { key: alice.key, json: googleMeetBot('exp-orts-aaa') });
  expect(created.status).toBe(201);
  meetingId = created.body.id;
  // Stored out of order, as late and re-sent segments arrive; the empty one is left out of the texts.
  await upsertSegments(api.database.db, [
    segment('d', 90_000, 90_001, 'Still here.', 'Alice'),
    segment('b', 61.9996, 64, 'Fish & chips\n--> two lines', 'Bob <B>'),
    segment('a', 1, 2.5, 'Hello everyone.', 'Alice'),
    segment('e', 30, 31, ' \n ', 'Alice'),
    segment('c', 65, 67, 'Nobody named this one.', null),
  ]);
});
afterAll(() => api?.close());

const get = (path: string, headers: Record<string, string> = {}, key = alice.key) =>
  api.request('GET', path, { key, headers });

async function expectedJson(): Promise<string> {
  const meeting = (await findMeetingById(api.database.db, meetingId))!;
  const segments = await listSegments(api.database.db, meetingId);
  return JSON.stringify({ ...meetingHeaderJson(meeting), segments: segments.map(segmentJson) });
}

describe('GET /transcripts?format=', () => {
  it.each([
    ['txt', 'text/plain; charset=utf-8', TXT],
    ['srt', 'application/x-subrip; charset=utf-8', SRT],
    ['vtt', 'text/vtt; charset=utf-8', VTT],
  ])('format=%s answers %s with the segments in order', async (format, contentType, body) => {
    const response = await get(`${PATH}?format=${format}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('content-disposition')).toBe(
      `inline; filename="google_meet-exp-orts-aaa.${format}"`,
    );
    // Chosen by the URL, so the answer does not vary with Accept.
    expect(response.headers.get('vary')).toBeNull();
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.text).toBe(body);
  });

  it('a transcript with markup in it is literal text in TXT, inert in SRT and VTT, never sniffed', async () => {
    // Its own user: alice's concurrent-bot limit is for the tests below.
    const carol = await api.createUser();
    const created = await api.request('POST', '/bots', { key: carol.key, json: teamsBot('5550777') });
    expect(created.status).toBe(201);
    await upsertSegments(api.database.db, [
      segmentRow(created.body.id, 'm', 1, 2, '<script>alert(1)</script> <b>loud</b> {\\an8}', '<i>Eve</i>'),
    ]);
    const path = '/transcripts/teams/5550777';
    const txt = await get(`${path}?format=txt`, {}, carol.key);
    expect(txt.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(txt.headers.get('x-content-type-options')).toBe('nosniff');
    expect(txt.text).toBe('[00:00:01] <i>Eve</i>: <script>alert(1)</script> <b>loud</b> {\\an8}\n');
    const srt = await get(`${path}?format=srt`, {}, carol.key);
    expect(srt.headers.get('x-content-type-options')).toBe('nosniff');
    expect(srt.text).toBe(
      '1\n00:00:01,000 --> 00:00:02,000\n＜i＞Eve＜/i＞: ＜script＞alert(1)＜/script＞ ＜b＞loud＜/b＞ ｛\\an8｝\n',
    );
    const vtt = await get(`${path}?format=vtt`, {}, carol.key);
    expect(vtt.text).toContain(
      '<v &lt;i&gt;Eve&lt;/i&gt;>&lt;script&gt;alert(1)&lt;/script&gt; &lt;b&gt;loud&lt;/b&gt; {\\an8}</v>',
    );
  });

  it('a segment stored with an absurd time (before ingest refused them) prints the 7-day bound', async () => {
    // Its own user: alice's concurrent-bot limit is for the tests below.
    const carol = await api.createUser();
    const created = await api.request('POST', '/bots', { key: carol.key, json: teamsBot('5550778') });
    expect(created.status).toBe(201);
    await upsertSegments(api.database.db, [
      segmentRow(created.body.id, 'x', 1e300, 1e300, 'lost', null, {
        absoluteStartTime: new Date('2026-11-22T10:00:00Z'),
        absoluteEndTime: new Date('2026-11-22T10:00:01Z'),
      }),
    ]);
    const srt = await get('/transcripts/teams/5550778?format=srt', {}, carol.key);
    expect(srt.text).toBe('1\n168:00:00,000 --> 168:00:00,000\nlost\n');
  });

  it('format=json is the JSON answer, with the same bytes and headers as no format at all', async () => {
    const plain = await get(PATH);
    const asked = await get(`${PATH}?format=json`);
    expect(plain.status).toBe(200);
    expect(plain.text).toBe(await expectedJson());
    expect(asked.text).toBe(plain.text);
    const headerNames = (response: typeof plain) => {
      const names: string[] = [];
      response.headers.forEach((_value, name) => {
        if (!['date', 'x-request-id'].includes(name)) names.push(name);
      });
      return names;
    };
    expect(headerNames(asked)).toEqual(headerNames(plain));
    expect(plain.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
    expect(plain.headers.get('content-disposition')).toBeNull();
    expect(plain.headers.get('vary')).toBeNull();
  });

  it.each(['xml', 'VTT', '', 'json,vtt'])('format=%j is 400 naming the allowed values', async (format) => {
    const response = await get(`${PATH}?format=${format}`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.body).toEqual({ error: 'format: must be one of json, txt, srt, vtt' });
  });

  it('a repeated format is 400 too', async () => {
    const response = await get(`${PATH}?format=txt&format=vtt`);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'format: must be one of json, txt, srt, vtt' });
  });

  it('an empty transcript is an empty text, the WEBVTT header alone, or no cues', async () => {
    const created = await api.request('POST', '/bots', { key: alice.key, json: teamsBot('5550123') });
    expect(created.status).toBe(201);
    const txt = await get('/transcripts/teams/5550123?format=txt');
    expect(txt.status).toBe(200);
    expect(txt.text).toBe('');
    expect(txt.headers.get('content-disposition')).toBe('inline; filename="teams-5550123.txt"');
    expect((await get('/transcripts/teams/5550123?format=srt')).text).toBe('');
    expect((await get('/transcripts/teams/5550123?format=vtt')).text).toBe('WEBVTT\n\n');
  });
});

describe('GET /transcripts with Accept', () => {
  it.each([
    ['text/plain', TXT, 'text/plain; charset=utf-8'],
    ['text/plain; charset=utf-8', TXT, 'text/plain; charset=utf-8'],
    ['application/x-subrip', SRT, 'application/x-subrip; charset=utf-8'],
    ['text/srt', SRT, 'application/x-subrip; charset=utf-8'],
    ['text/vtt', VTT, 'text/vtt; charset=utf-8'],
    ['application/json;q=0.5, text/vtt', VTT, 'text/vtt; charset=utf-8'],
  ])('Accept: %s', async (accept, body, contentType) => {
    const response = await get(PATH, { Accept: accept });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('vary')).toBe('Accept');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.text).toBe(body);
  });

  it.each([
    '*/*',
    'application/json',
    'application/*',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'image/png, */*;q=0.1',
  ])('Accept: %s is the JSON answer', async (accept) => {
    const response = await get(PATH, { Accept: accept });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.text).toBe(await expectedJson());
  });

  it('format wins over Accept', async () => {
    const json = await get(`${PATH}?format=json`, { Accept: 'text/vtt' });
    expect(json.text).toBe(await expectedJson());
    const vtt = await get(`${PATH}?format=vtt`, { Accept: 'image/png' });
    expect(vtt.status).toBe(200);
    expect(vtt.text).toBe(VTT);
  });

  it.each(['image/png', 'application/xml, image/*', '*/*;q=0'])(
    'Accept: %s names nothing we write: 406 with a JSON error',
    async (accept) => {
      const response = await get(PATH, { Accept: accept });
      expect(response.status).toBe(406);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('vary')).toBe('Accept');
      expect(response.body).toEqual({
        error:
          'Not acceptable: this endpoint answers application/json, text/plain, application/x-subrip, text/srt, text/vtt; or ask with ?format=json|txt|srt|vtt',
      });
    },
  );
});

describe('GET /transcripts in text: keys and freshness', () => {
  it("another user's meeting is 404 Meeting not found in every format, as JSON", async () => {
    for (const [query, headers] of [
      ['?format=txt', {}],
      ['?format=srt', {}],
      ['?format=vtt', {}],
      ['', { Accept: 'text/vtt' }],
    ] as const) {
      const response = await get(`${PATH}${query}`, headers, bob.key);
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.body).toEqual({ error: 'Meeting not found' });
    }
  });

  it('no key is 401, even with a bad format', async () => {
    const response = await api.request('GET', `${PATH}?format=nope`, { headers: { Accept: 'image/png' } });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ error: 'Unauthorized' });
  });

  it('an unknown meeting is 404 in text formats too', async () => {
    const response = await get('/transcripts/teams/5550999?format=srt');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'Meeting not found' });
  });

  it('shows every segment write at once (the cached text follows the transcript version)', async () => {
    const created = await api.request('POST', '/bots', {
      key: alice.key,
      json: googleMeetBot('fre-shte-xts'),
    });
    meetingId = created.body.id;
    const read = async () => (await get('/transcripts/google_meet/fre-shte-xts?format=vtt')).text;
    await upsertSegments(api.database.db, [{ ...segment('a', 1, 2, 'draft', 'Ann'), final: false }]);
    expect(await read()).toContain('<v Ann>draft</v>');
    expect(await read()).toContain('<v Ann>draft</v>');
    await upsertSegments(api.database.db, [segment('a', 1, 2, 'final words', 'Ann')]);
    expect(await read()).toBe('WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v Ann>final words</v>\n');
    await upsertSegments(api.database.db, [segment('b', 0.5, 0.9, 'earlier', null)]);
    expect(await read()).toBe(
      'WEBVTT\n\n1\n00:00:00.500 --> 00:00:00.900\nearlier\n\n2\n00:00:01.000 --> 00:00:02.000\n<v Ann>final words</v>\n',
    );
    // A status change leaves the text as it was; the JSON answer shows it.
    await transitionMeeting(api.database.db, meetingId, { to: 'failed', source: 'test' });
    expect(await read()).toContain('earlier');
    expect((await get('/transcripts/google_meet/fre-shte-xts')).body.status).toBe('failed');
  });
});
