import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Platform } from '../../../shared/contract/platforms.js';
import { insertMeeting, type MeetingRecord, mergeMeetingData } from '../../../shared/meetings/store.js';
import { type SegmentUpsert, upsertSegments } from '../../../shared/transcripts/store.js';
import { ISO_UTC, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { segmentRow } from '../../support/segments.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

let meetingCounter = 0;

/** A finished meeting of the user's, stored as the API and worker store them. */
async function meeting(
  user: TestUser,
  options: {
    platform?: Platform;
    nativeMeetingId?: string;
    language?: string | null;
    data?: Record<string, unknown>;
    startTime?: Date;
  } = {},
): Promise<MeetingRecord> {
  meetingCounter += 1;
  const platform = options.platform ?? 'teams';
  const nativeMeetingId =
    options.nativeMeetingId ??
    (platform === 'teams' ? String(700_000 + meetingCounter) : googleMeetId(meetingCounter));
  const created = await insertMeeting(api.database.db, {
    userId: user.id,
    platform,
    nativeMeetingId,
    meetingUrl: `https://example.com/${nativeMeetingId}`,
    passcode: null,
    botName: 'Notes',
    language: options.language === undefined ? 'en' : options.language,
    task: 'transcribe',
  });
  if (options.data) await mergeMeetingData(api.database.db, created.id, options.data, 65_536);
  const start = options.startTime ?? new Date(Date.UTC(2026, 10, 22, 10));
  await api.database
    .db('meetings')
    .where({ id: created.id })
    .update({ status: 'completed', start_time: start, end_time: new Date(start.getTime() + 3_600_000) });
  return { ...created, startTime: start };
}

function googleMeetId(n: number): string {
  const letters = n
    .toString(26)
    .padStart(10, '0')
    .replace(/./g, (digit) => String.fromCharCode(97 + Number.parseInt(digit, 26)));
  return `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}

let segmentCounter = 0;

/** Stores segments of a meeting, one every 5 s, as the ingester does (upsertSegments). */
async function say(
  meeting: MeetingRecord,
  lines: Array<string | { text: string; speaker?: string | null; language?: string | null; at?: Date }>,
): Promise<SegmentUpsert[]> {
  const segments = lines.map((line, index) => {
    const entry = typeof line === 'string' ? { text: line } : line;
    segmentCounter += 1;
    const start = index * 5;
    const extra: Partial<SegmentUpsert> = {};
    if (entry.language !== undefined) extra.language = entry.language;
    if (entry.at) {
      extra.absoluteStartTime = entry.at;
      extra.absoluteEndTime = new Date(entry.at.getTime() + 4000);
    }
    return segmentRow(
      meeting.id,
      `seg-${segmentCounter}`,
      start,
      start + 4,
      entry.text,
      entry.speaker === undefined ? 'Alice' : entry.speaker,
      extra,
    );
  });
  await upsertSegments(api.database.db, segments);
  return segments;
}

async function search(user: TestUser, query: string) {
  return api.request('GET', `/search?${query}`, { key: user.key });
}

const q = (text: string, more = '') => `q=${encodeURIComponent(text)}${more ? `&${more}` : ''}`;

describe('GET /search', () => {
  it('finds a spoken sentence and shows the hit with its meeting, segment and a marked snippet', async () => {
    const user = await api.createUser();
    const weekly = await meeting(user, { platform: 'google_meet', data: { name: 'Weekly sync' } });
    const [, segment] = await say(weekly, [
      'Good morning everyone.',
      { text: 'We agreed to move the launch of the mobile app to March.', speaker: 'Bo Chen' },
      'Thanks, see you next week.',
    ]);

    const response = await search(user, q('launch mobile'));
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(1);
    expect(response.body.hits).toHaveLength(1);
    const [hit] = response.body.hits;
    expect(hit.field).toBe('transcript');
    expect(hit.rank).toBeGreaterThan(0);
    expect(hit.meeting).toEqual({
      id: weekly.id,
      platform: 'google_meet',
      native_meeting_id: weekly.nativeMeetingId,
      status: 'completed',
      name: 'Weekly sync',
      start_time: '2026-11-22T10:00:00.000Z',
      end_time: '2026-11-22T11:00:00.000Z',
    });
    expect(hit.segment).toEqual({
      segment_id: segment!.segmentId,
      speaker: 'Bo Chen',
      language: 'en',
      text: 'We agreed to move the launch of the mobile app to March.',
      start: 5,
      end: 9,
      absolute_start_time: segment!.absoluteStartTime.toISOString(),
      absolute_end_time: segment!.absoluteEndTime.toISOString(),
    });
    expect(hit.segment.absolute_start_time).toMatch(ISO_UTC);
    expect(hit.snippet).toBe(
      'We agreed to move the <mark>launch</mark> of the <mark>mobile</mark> app to March.',
    );
  });

  it('ranks more and closer matches first, and the same match in a name above notes and the transcript', async () => {
    const user = await api.createUser();
    const named = await meeting(user, {
      data: { name: 'Budget review', notes: 'We went through the budget review.' },
    });
    const other = await meeting(user);
    await say(other, [
      'The budget is fine but the review of the hiring plan waits until Friday afternoon.',
      'Budget review first: the budget review is done.',
      'The budget review starts now.',
    ]);

    const response = await search(user, q('budget review'));
    expect(response.status).toBe(200);
    const order = response.body.hits.map(
      (hit: { field: string; meeting: { id: number }; segment: { text: string } | null }) =>
        hit.segment ? hit.segment.text : `${hit.field} of ${hit.meeting.id}`,
    );
    expect(order).toEqual([
      `name of ${named.id}`,
      // Twice in a segment outranks once in the notes; once, the notes outrank a segment.
      'Budget review first: the budget review is done.',
      `notes of ${named.id}`,
      'The budget review starts now.',
      'The budget is fine but the review of the hiring plan waits until Friday afternoon.',
    ]);
    expect(response.body.total).toBe(5);
    const ranks = response.body.hits.map((hit: { rank: number }) => hit.rank);
    expect([...ranks].sort((a, b) => b - a)).toEqual(ranks);
    expect(response.body.hits[0].segment).toBeNull();
    expect(response.body.hits[0].snippet).toBe('<mark>Budget</mark> <mark>review</mark>');
  });

  it('finds participants and notes, stemmed (plans → plan), and each hit is one text with every word', async () => {
    const user = await api.createUser();
    const planning = await meeting(user, {
      data: {
        name: 'Roadmap',
        participants: ['Ann Lee', 'Bo Chen'],
        notes: 'Decided: the hiring plans for Berlin wait. Also discussed the roadmap for spring.',
      },
    });

    const participants = await search(user, q('chen'));
    expect(participants.body.hits.map((hit: { field: string }) => hit.field)).toEqual(['participants']);
    expect(participants.body.hits[0].snippet).toBe('Ann Lee, Bo <mark>Chen</mark>');
    expect(participants.body.hits[0].meeting.id).toBe(planning.id);

    const notes = await search(user, q('hiring plan'));
    expect(notes.body.hits.map((hit: { field: string }) => hit.field)).toEqual(['notes']);
    expect(notes.body.hits[0].snippet).toContain('<mark>hiring</mark> <mark>plans</mark>');

    // "roadmap" is in the name and the notes, "Chen" only among the participants: no single text has both.
    const across = await search(user, q('roadmap chen'));
    expect(across.body).toEqual({ total: 0, hits: [] });
  });

  it('understands phrases, or and excluded words', async () => {
    const user = await api.createUser();
    const sync = await meeting(user);
    await say(sync, [
      'The next quarter looks good.',
      'Next, the quarter before was bad.',
      'Invoices are late.',
    ]);
    const texts = async (text: string) =>
      (await search(user, q(text))).body.hits
        .map((hit: { segment: { text: string } }) => hit.segment.text)
        .sort();

    expect(await texts('"next quarter"')).toEqual(['The next quarter looks good.']);
    expect(await texts('next quarter')).toEqual([
      'Next, the quarter before was bad.',
      'The next quarter looks good.',
    ]);
    expect(await texts('quarter -bad')).toEqual(['The next quarter looks good.']);
    expect(await texts('invoice or bad')).toEqual([
      'Invoices are late.',
      'Next, the quarter before was bad.',
    ]);
  });

  it('escapes the text in snippets, so only the marks are markup', async () => {
    const user = await api.createUser();
    const sync = await meeting(user);
    await say(sync, ['Tom & Jerry said <b>budget</b> \uE000twice\uE001 is <mark>fine</mark>.']);
    const response = await search(user, q('budget'));
    expect(response.body.hits[0].snippet).toBe(
      'Tom &amp; Jerry said &lt;b&gt;<mark>budget</mark>&lt;/b&gt; \uFFFDtwice\uFFFD is &lt;mark&gt;fine&lt;/mark&gt;.',
    );
    // The segment's own text is given as it is.
    expect(response.body.hits[0].segment.text).toContain('<b>budget</b> \uE000twice\uE001');
  });

  it('cuts a long text to the fragments around its matches', async () => {
    const user = await api.createUser();
    const filler = Array.from({ length: 200 }, (_, index) => `word${index}`).join(' ');
    await meeting(user, {
      data: { notes: `${filler} the contract was signed ${filler} the contract ends ${filler}` },
    });
    const response = await search(user, q('contract'));
    const { snippet } = response.body.hits[0];
    expect(snippet).toContain('<mark>contract</mark> was signed');
    expect(snippet).toContain('<mark>contract</mark> ends');
    expect(snippet).toContain(' … ');
    expect(snippet.length).toBeLessThan(600);
  });

  it('stems each meeting by its language, and parses the query the same way for it', async () => {
    const user = await api.createUser();
    const german = await meeting(user, { language: 'de', data: { name: 'Bauplanung' } });
    const detected = await meeting(user, { language: null });
    const unknown = await meeting(user, { language: 'xx' });
    const english = await meeting(user, { language: 'en' });
    // The segment names no language: the meeting's applies.
    await say(german, [{ text: 'Die Häuser am See sind teuer.', language: null }]);
    // The segment says its language (a detecting engine): it wins over the meeting's.
    await say(detected, [{ text: 'Wir verkaufen zwei Häuser.', language: 'de' }]);
    await say(unknown, [{ text: 'Häuser ohne Sprache.', language: 'und' }]);
    await say(english, ['The houses by the lake are expensive.']);
    const meetingsFound = async (text: string) =>
      (await search(user, q(text))).body.hits
        .map((hit: { meeting: { id: number } }) => hit.meeting.id)
        .sort();

    // German stems Häuser to haus; an unknown language is indexed as written (simple).
    expect(await meetingsFound('Haus')).toEqual([german.id, detected.id].sort());
    expect(await meetingsFound('Häuser')).toEqual([german.id, detected.id, unknown.id].sort());
    expect(await meetingsFound('house')).toEqual([english.id]);
    // English stems "hausing" to haus too, but German rows are matched by German's parse ("hausing").
    expect(await meetingsFound('hausing')).toEqual([]);
    const snippet = (await search(user, q('Haus', `meeting_id=${german.id}`))).body.hits[0].snippet;
    expect(snippet).toBe('Die <mark>Häuser</mark> am See sind teuer.');
  });

  it('keeps up with a segment rewritten while the meeting runs', async () => {
    const user = await api.createUser();
    const live = await meeting(user);
    const first = segmentRow(live.id, 'live-1', 0, 2, 'we should cut the travel', 'Alice', { final: false });
    await upsertSegments(api.database.db, [first]);
    expect((await search(user, q('travel'))).body.total).toBe(1);

    await upsertSegments(api.database.db, [
      { ...first, end: 4, text: 'we should cut the marketing budget', speaker: 'Bob', final: true },
    ]);
    // The speaker changed with it: the index's speaker too.
    expect((await search(user, q('marketing', 'speaker=alice'))).body.total).toBe(0);
    expect((await search(user, q('marketing', 'speaker=bob'))).body.total).toBe(1);
    expect((await search(user, q('travel'))).body).toEqual({ total: 0, hits: [] });
    const found = await search(user, q('marketing'));
    expect(found.body.total).toBe(1);
    expect(found.body.hits[0].segment).toMatchObject({
      segment_id: 'live-1',
      text: 'we should cut the marketing budget',
      end: 4,
    });
  });

  it('follows edits of the meeting data', async () => {
    const user = await api.createUser();
    const edited = await meeting(user, {
      platform: 'teams',
      nativeMeetingId: '8675309',
      data: { name: 'Kickoff' },
    });
    expect((await search(user, q('kickoff'))).body.total).toBe(1);
    const patched = await api.request('PATCH', '/meetings/teams/8675309', {
      key: user.key,
      json: { data: { name: 'Retrospective', notes: null } },
    });
    expect(patched.status).toBe(200);
    expect((await search(user, q('kickoff'))).body.total).toBe(0);
    const found = await search(user, q('retrospective'));
    expect(
      found.body.hits.map((hit: { field: string; meeting: { id: number } }) => [hit.field, hit.meeting.id]),
    ).toEqual([['name', edited.id]]);
  });

  it('forgets a deleted meeting', async () => {
    const user = await api.createUser();
    const doomed = await meeting(user, {
      platform: 'teams',
      nativeMeetingId: '5550123',
      data: { name: 'Merger talks' },
    });
    await say(doomed, ['The merger closes in May.']);
    expect((await search(user, q('merger'))).body.total).toBe(2);
    const deleted = await api.request('DELETE', '/meetings/teams/5550123', { key: user.key });
    expect(deleted.status).toBe(200);
    expect((await search(user, q('merger'))).body).toEqual({ total: 0, hits: [] });
  });

  it('filters by platform, meeting, speaker and time', async () => {
    const user = await api.createUser();
    const meet = await meeting(user, {
      platform: 'google_meet',
      startTime: new Date('2026-03-10T09:00:00Z'),
    });
    const teams = await meeting(user, {
      platform: 'teams',
      nativeMeetingId: '4242',
      startTime: new Date('2026-03-12T09:00:00Z'),
      data: { name: 'Forecast review' },
    });
    await say(meet, [
      { text: 'The forecast is up.', speaker: 'Ann Lee', at: new Date('2026-03-10T09:01:00Z') },
      { text: 'The forecast is late.', speaker: null, at: new Date('2026-03-10T23:59:59Z') },
    ]);
    await say(teams, [
      { text: 'Forecast numbers please.', speaker: 'Bo Chen', at: new Date('2026-03-12T09:05:00Z') },
    ]);
    const found = async (more: string) =>
      (await search(user, q('forecast', more))).body.hits
        .map((hit: { field: string; segment: { text: string } | null }) => hit.segment?.text ?? hit.field)
        .sort();

    expect(await found('')).toHaveLength(4);
    expect(await found('platform=google_meet')).toEqual(['The forecast is late.', 'The forecast is up.']);
    expect(await found('platform=teams')).toEqual(['Forecast numbers please.', 'name']);
    expect(await found(`meeting_id=${teams.id}`)).toEqual(['Forecast numbers please.', 'name']);
    expect(await found('platform=teams&native_meeting_id=4242')).toEqual([
      'Forecast numbers please.',
      'name',
    ]);
    // A speaker: only what they said, no meeting data; any case; "Unknown speaker" for the unnamed.
    expect(await found('speaker=ann%20LEE')).toEqual(['The forecast is up.']);
    expect(await found('speaker=Unknown%20speaker')).toEqual(['The forecast is late.']);
    // A date is a whole UTC day; a time is exact (from inclusive, to exclusive).
    expect(await found('from=2026-03-10&to=2026-03-10')).toEqual([
      'The forecast is late.',
      'The forecast is up.',
    ]);
    expect(await found('to=2026-03-10T23:59:59Z')).toEqual(['The forecast is up.']);
    expect(await found('from=2026-03-11')).toEqual(['Forecast numbers please.', 'name']);
    expect(await found('from=2026-03-12T10:00:00%2B01:00')).toEqual(['Forecast numbers please.', 'name']);
    expect(await found('from=2026-03-12T09:00:01Z')).toEqual(['Forecast numbers please.']);
    expect(await found('from=2026-03-10T09:00:00Z&to=2026-03-10T09:01:00Z')).toEqual([]);
    expect(await found('from=2026-03-10T09:00:00Z&to=2026-03-10T09:01:00.001Z')).toEqual([
      'The forecast is up.',
    ]);
    // A long range (past 92 days, not looked up day by day in the index) works the same.
    expect(await found('from=2025-01-01&to=2026-12-31')).toHaveLength(4);
    expect(await found('from=2025-01-01&to=2026-03-10T23:00:00Z')).toEqual(['The forecast is up.']);
  });

  it('pages like the other lists, the total the same on every page', async () => {
    const user = await api.createUser();
    const long = await meeting(user);
    await say(
      long,
      Array.from(
        { length: 7 },
        (_, index) => `Item ${index}: the deadline ${'deadline '.repeat(index)}moved.`,
      ),
    );
    const all = await search(user, q('deadline'));
    expect(all.body.total).toBe(7);
    // The most mentions rank first.
    expect(all.body.hits[0].segment.text).toMatch(/^Item 6:/);
    const pages = [];
    for (const offset of [0, 3, 6]) {
      const page = await search(user, q('deadline', `limit=3&offset=${offset}`));
      expect(page.body.total).toBe(7);
      pages.push(...page.body.hits.map((hit: { segment: { segment_id: string } }) => hit.segment.segment_id));
    }
    expect(pages).toEqual(
      all.body.hits.map((hit: { segment: { segment_id: string } }) => hit.segment.segment_id),
    );
    expect((await search(user, q('deadline', 'offset=50'))).body).toEqual({ total: 7, hits: [] });
  });

  it("never shows another user's meetings", async () => {
    const alice = await api.createUser();
    const bob = await api.createUser();
    const secret = await meeting(alice, {
      platform: 'teams',
      nativeMeetingId: '1357924680',
      data: { name: 'Acquisition of Globex', participants: ['Alice Aha'], notes: 'Globex price' },
    });
    await say(secret, ['The Globex acquisition price is confidential.']);
    const bobs = await meeting(bob, { platform: 'teams', nativeMeetingId: '1357924680' });
    await say(bobs, ['Nothing to see here.']);

    expect((await search(alice, q('globex'))).body.total).toBe(3);
    expect((await search(bob, q('globex'))).body).toEqual({ total: 0, hits: [] });
    expect((await search(bob, q('Alice Aha'))).body).toEqual({ total: 0, hits: [] });
    expect((await search(bob, q('confidential'))).body).toEqual({ total: 0, hits: [] });
    // Alice's meeting id is no meeting of Bob's; the same platform id is his own meeting.
    const byId = await search(bob, q('globex', `meeting_id=${secret.id}`));
    expect(byId.status).toBe(404);
    expect(byId.body).toEqual({ error: 'Meeting not found' });
    const byNativeId = await search(bob, q('globex', 'platform=teams&native_meeting_id=1357924680'));
    expect(byNativeId.body).toEqual({ total: 0, hits: [] });
    expect((await search(bob, q('nothing', 'platform=teams&native_meeting_id=1357924680'))).body.total).toBe(
      1,
    );
  });

  it('refuses bad queries with a 400 naming the parameter', async () => {
    const user = await api.createUser();
    await meeting(user);
    const cases: Array<[string, string]> = [
      ['', 'q: is required'],
      ['q=', 'q: must not be empty'],
      ['q=%20%20%20', 'q: must not be empty'],
      [q('x'.repeat(501)), 'q: must be at most 500 characters'],
      ['q=a&q=b', 'q: must be a single string'],
      [q('&|!():*'), 'q: has no words to search for (only punctuation or symbols)'],
      [
        q('-budget'),
        'q: needs a word that must appear; a query of only excluded words (-word) matches nearly everything',
      ],
      [q('a', 'platform=webex'), 'platform: must be one of google_meet, teams, zoom'],
      [q('a', 'meeting_id=abc'), 'meeting_id: must be a whole number'],
      [q('a', 'meeting_id=0'), 'meeting_id: must be at least 1'],
      [q('a', 'meeting_id=2147483648'), 'meeting_id: must be at most 2147483647'],
      [
        q('a', 'native_meeting_id=123'),
        'native_meeting_id: needs platform (the same id can exist on both platforms)',
      ],
      [q('a', 'speaker='), 'speaker: must not be empty'],
      [
        q('a', 'from=yesterday'),
        'from: must be an ISO 8601 date (2026-11-22) or time with Z or an offset (2026-11-22T10:00:00Z)',
      ],
      [
        q('a', 'from=2026-02-30'),
        'from: must be an ISO 8601 date (2026-11-22) or time with Z or an offset (2026-11-22T10:00:00Z)',
      ],
      [
        q('a', 'to=2026-11-22T10:00:00'),
        'to: must be an ISO 8601 date (2026-11-22) or time with Z or an offset (2026-11-22T10:00:00Z)',
      ],
      [
        q('a', 'to=0000-01-01'),
        'to: must be an ISO 8601 date (2026-11-22) or time with Z or an offset (2026-11-22T10:00:00Z)',
      ],
      [q('a', 'from=2026-11-22&to=2026-11-21'), 'from: must be before to'],
      [q('a', 'limit=0'), 'limit: must be at least 1'],
      [q('a', 'limit=1001'), 'limit: must be at most 1000'],
      [q('a', 'offset=-1'), 'offset: must be a whole number'],
      [q('a\u0000b'), 'q: must not contain NUL (\\u0000) characters'],
    ];
    for (const [query, message] of cases) {
      const response = await search(user, query);
      expect({ query, status: response.status, body: response.body }).toEqual({
        query,
        status: 400,
        body: { error: message },
      });
    }
    expect((await api.request('GET', '/search?q=budget')).status).toBe(401);
  });

  it('finds nothing, without an error, for a user with nothing stored or only stop words', async () => {
    const empty = await api.createUser();
    expect((await search(empty, q('budget'))).body).toEqual({ total: 0, hits: [] });
    expect((await search(empty, q('-budget'))).status).toBe(400);
    expect((await search(empty, q('!!'))).status).toBe(400);
    const english = await api.createUser();
    await say(await meeting(english), ['The budget is there.']);
    // English drops "the" and "is": words of no English text.
    expect((await search(english, q('the is'))).body).toEqual({ total: 0, hits: [] });
    expect((await search(english, q('the budget'))).body.total).toBe(1);
  });

  it('gives up a search that runs past SEARCH_TIMEOUT_MS with a 503', async () => {
    const slow = await startTestApi({ env: { SEARCH_TIMEOUT_MS: '300' } });
    try {
      const user = await slow.createUser();
      await insertMeeting(slow.database.db, {
        userId: user.id,
        platform: 'teams',
        nativeMeetingId: '31337',
        meetingUrl: 'https://example.com/31337',
        passcode: null,
        botName: 'Notes',
        language: 'en',
        task: 'transcribe',
      });
      // A lock on the segments holds the search back as a long scan would.
      const blocker = await slow.database.db.transaction();
      await blocker.raw('LOCK TABLE transcript_segments IN ACCESS EXCLUSIVE MODE');
      try {
        const started = Date.now();
        const response = await slow.request('GET', `/search?${q('budget')}`, { key: user.key });
        expect(response.status).toBe(503);
        expect(response.body).toEqual({
          error:
            'The search took longer than 0.3 s; narrow it (a phrase, fewer "or"s, a filter) or try again',
        });
        expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      } finally {
        await blocker.rollback();
      }
      expect((await slow.request('GET', `/search?${q('budget')}`, { key: user.key })).status).toBe(200);
    } finally {
      await slow.close();
    }
  });

  it('answers any text, however odd, with hits or a 400, never an error of its own', async () => {
    const user = await api.createUser();
    const odd = await meeting(user, { data: { name: 'O\'Brien\'s "quoted" (notes) & co: 100% *' } });
    await say(odd, ["It's O'Brien's call: a & b | c! (really) *star* \\ back\\slash 😀 ünïcödé 東京 テスト"]);
    const inputs = [
      '"',
      '""',
      '"unclosed phrase',
      "'",
      "O'Brien's",
      '!!',
      '((a',
      'a:*',
      'a:* & b',
      '&',
      'a & b | c',
      '!a',
      '-',
      '--a',
      'or',
      'a or or b',
      '- - -',
      '"a" -"b"',
      '\\',
      "\\\\'",
      '😀',
      'ünïcödé',
      '東京',
      'テスト',
      '\u202e\u200b\ufeff',
      "' OR 1=1 --",
      '$1',
      '?',
      '::tsquery',
      '<->',
      'a <2> b',
      'a:A',
      '%',
      '\uE000budget\uE001',
      'x'.repeat(500),
      Array.from({ length: 120 }, (_, index) => `w${index}`).join(' or '),
    ];
    for (const text of inputs) {
      const response = await search(user, q(text));
      expect([200, 400], `q=${text}: ${response.text}`).toContain(response.status);
      if (response.status === 200) {
        expect(Object.keys(response.body).sort()).toEqual(['hits', 'total']);
      } else {
        expect(Object.keys(response.body)).toEqual(['error']);
        expect(response.body.error).toMatch(/^q: /);
      }
    }
    expect((await search(user, q("O'Brien's"))).body.total).toBe(2);
    expect((await search(user, q('東京'))).body.total).toBe(1);
    expect((await search(user, q('ünïcödé'))).body.total).toBe(1);
  });
});
