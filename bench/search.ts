/**
 * Full-text search at scale: a database of its own (meetbot_bench_search) with 10,000 meetings and
 * 2,000,000 segments of generated English meeting talk (some German) among several users, loaded
 * through the real schema (the migrations' triggers write every segment's search columns), then
 * varied searches through searchTranscripts (what GET /search and the MCP tool call) for a heavy
 * user and a typical one: p50, p95 and max per search and over all, with the table and index sizes.
 *   nice -n 10 npx tsx bench/search.ts [--meetings 10000] [--segments 2000000] [--users 7]
 *     [--shares 0.4,0.1] [--rounds 15] [--keep] [--reuse] [--shared-buffers 2GB]
 * --shares: the measured users' parts of the meetings (the other users share the rest evenly);
 * --keep leaves the database for another run, which --reuse then searches without loading it again;
 * --shared-buffers runs a Postgres cluster of the bench's own with that cache (and no --keep) instead
 * of the server at TEST_DATABASE_URL, whose settings are what they are.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { insertUser } from '../shared/accounts/users-store.js';
import { createKnex, type Knex } from '../shared/infra/knex.js';
import { migrateToLatest } from '../shared/infra/migrate.js';
import type { SearchQuery } from '../shared/search/query.js';
import { searchTranscripts } from '../shared/search/service.js';
import { TEST_POSTGRES_URL } from '../test/support/env.js';
import { type OwnPostgres, startOwnPostgres } from '../test/support/postgres-server.js';
import { CODE_NAMES, MeetingTalk, seededRandom } from './support/meeting-text.js';
import { SegmentBatches } from './support/segment-batches.js';

const { values } = parseArgs({
  options: {
    meetings: { type: 'string', default: '10000' },
    segments: { type: 'string', default: '2000000' },
    users: { type: 'string', default: '7' },
    shares: { type: 'string', default: '0.4,0.1' },
    rounds: { type: 'string', default: '15' },
    database: { type: 'string', default: 'meetbot_bench_search' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    'shared-buffers': { type: 'string' },
  },
});
const MEETINGS = Number(values.meetings);
const SEGMENTS = Number(values.segments);
const USERS = Number(values.users);
const SHARES = values.shares.split(',').map(Number);
const ROUNDS = Number(values.rounds);
const NAME = values.database;
if (!/^[a-z0-9_]+$/.test(NAME)) throw new Error('--database: lowercase letters, digits and _ only');
if (SHARES.length >= USERS || SHARES.reduce((sum, share) => sum + share, 0) >= 1) {
  throw new Error('--shares: fewer than --users, adding up to less than 1');
}

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}`;
const own: OwnPostgres | undefined = values['shared-buffers']
  ? await startOwnPostgres({ shared_buffers: values['shared-buffers'] })
  : undefined;
const serverUrl = own?.url ?? TEST_POSTGRES_URL;
const admin = createKnex(serverUrl, 1);
const url = new URL(serverUrl);
url.pathname = `/${NAME}`;
const exists = (await admin.raw('SELECT 1 FROM pg_database WHERE datname = ?', [NAME])).rows.length > 0;
if (exists && !values.reuse) await admin.raw('DROP DATABASE ?? WITH (FORCE)', [NAME]);
if (!exists || !values.reuse) await admin.raw('CREATE DATABASE ??', [NAME]);
const db = createKnex(url.toString(), 4);

try {
  const settings = await db.raw<{ rows: Array<{ name: string; setting: string }> }>(
    `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['server_version', 'shared_buffers', 'work_mem']) AS name`,
  );
  log(`Postgres ${settings.rows.map((row) => `${row.name} ${row.setting}`).join(', ')}; ${load()}`);
  await migrateToLatest(db);
  const loaded = Number((await db('meetings').count({ n: '*' }))[0]?.n) > 0;
  if (!loaded) await loadData(db);
  else log(`reusing ${NAME} as it was loaded`);
  await report(db);
} finally {
  await db.destroy();
  if (!values.keep || own) await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [NAME]);
  else log(`kept database ${NAME} (search it again with --reuse; drop it with DROP DATABASE ${NAME})`);
  await admin.destroy();
  await own?.destroy();
}
process.exit(0);

/** Users, then meetings in time order (the users' interleaved), then each meeting's segments in turn. */
async function loadData(db: Knex): Promise<void> {
  const random = seededRandom(29);
  const talk = new MeetingTalk(random);
  const users: number[] = [];
  for (let index = 0; index < USERS; index += 1) {
    const user = await insertUser(db, { email: `bench${index + 1}@example.com`, maxConcurrentBots: 100 });
    users.push(user.id);
  }

  // Meeting lengths vary (a 5-minute call to a 2-hour workshop); scaled so the segments add up.
  const weights = Array.from({ length: MEETINGS }, () => 0.15 + random() ** 2 * 3);
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const counts = weights.map((weight) => Math.max(1, Math.round((weight / weightSum) * SEGMENTS)));
  const first = Date.UTC(2025, 0, 6, 8);
  const span = 700 * 86_400_000;

  const started = performance.now();
  const meetings: Array<{ id: number; language: 'en' | 'de'; participants: string[]; start: number }> = [];
  const rows = [];
  for (let index = 0; index < MEETINGS; index += 1) {
    const userId = pickUser(users, random());
    const language: 'en' | 'de' = random() < 0.04 ? 'de' : 'en';
    const participants = talk.participants();
    const start = first + Math.floor((index / MEETINGS) * span) + Math.floor(random() * 3_600_000);
    const platform = random() < 0.6 ? 'google_meet' : 'teams';
    const nativeId = platform === 'google_meet' ? meetId(index) : String(900_000_000_000 + index);
    const data: Record<string, unknown> = {};
    if (random() < 0.9) data.name = talk.meetingName();
    if (random() < 0.8) data.participants = participants;
    if (random() < 0.3) data.notes = talk.notes();
    if (language === 'de') data.languages = ['de'];
    rows.push({
      user_id: userId,
      platform,
      native_meeting_id: nativeId,
      status: 'completed',
      meeting_url:
        platform === 'google_meet'
          ? `https://meet.google.com/${nativeId}`
          : `https://teams.microsoft.com/meet/${nativeId}?p=x`,
      passcode: platform === 'teams' ? 'x' : null,
      bot_name: 'Bench',
      // A third asked for no language (detected): their segments still say which.
      language: random() < 0.33 ? null : language,
      data: JSON.stringify(data),
      start_time: new Date(start),
      end_time: new Date(start + counts[index]! * 5_000),
      created_at: new Date(start - 60_000),
    });
    meetings.push({ id: 0, language, participants, start });
  }
  for (let offset = 0; offset < rows.length; offset += 1000) {
    const ids: Array<{ id: number }> = await db('meetings')
      .insert(rows.slice(offset, offset + 1000))
      .returning('id');
    ids.forEach((row, index) => {
      meetings[offset + index]!.id = row.id;
    });
  }
  log(`loaded ${MEETINGS} meetings for ${USERS} users in ${seconds(started)}`);

  const segments = new SegmentBatches(db, (written, batchSize) => {
    if (written % 200_000 < batchSize) log(`  ${written} segments, ${seconds(started)}`);
  });
  for (const [index, meeting] of meetings.entries()) {
    let at = 0;
    for (let number = 0; number < counts[index]!; number += 1) {
      const text = talk.sentence(meeting.language);
      const duration = 1 + text.length / 15;
      await segments.add({
        meetingId: meeting.id,
        segmentId: `seg-${number}`,
        start: at,
        end: at + duration,
        text,
        speaker:
          random() < 0.05 ? null : meeting.participants[Math.floor(random() * meeting.participants.length)]!,
        language: meeting.language,
        absoluteStart: new Date(meeting.start + at * 1000).toISOString(),
        absoluteEnd: new Date(meeting.start + (at + duration) * 1000).toISOString(),
      });
      at += duration + random() * 2;
    }
  }
  await segments.flush();
  log(`loaded ${segments.written} segments in ${seconds(started)} (through the triggers and indexes)`);
  const vacuumed = performance.now();
  await db.raw('VACUUM ANALYZE');
  log(`VACUUM ANALYZE ${seconds(vacuumed)}`);
}

/** The measured users own SHARES of the meetings, in order; the others share the rest evenly. */
function pickUser(users: number[], roll: number): number {
  let bound = 0;
  for (const [index, share] of SHARES.entries()) {
    bound += share;
    if (roll < bound) return users[index]!;
  }
  const others = users.slice(SHARES.length);
  return others[Math.min(others.length - 1, Math.floor(((roll - bound) / (1 - bound)) * others.length))]!;
}

interface Case {
  name: string;
  query: Omit<SearchQuery, 'limit' | 'offset'> & { limit?: number; offset?: number };
}

async function report(db: Knex): Promise<void> {
  const counts = await db.raw<{ rows: Array<{ user_id: number; meetings: number; segments: number }> }>(
    `SELECT u.id AS user_id,
       (SELECT count(*) FROM meetings WHERE user_id = u.id)::int AS meetings,
       (SELECT count(*) FROM transcript_segments WHERE user_id = u.id)::int AS segments
     FROM users u ORDER BY u.id`,
  );
  const measured = counts.rows.slice(0, SHARES.length);
  for (const row of counts.rows) {
    log(
      `user ${row.user_id}: ${row.meetings} meetings, ${row.segments} segments${measured.includes(row) ? ' (searched)' : ''}`,
    );
  }
  const sizes = await db.raw<{ rows: Array<Record<string, string>> }>(
    `SELECT pg_size_pretty(pg_relation_size('transcript_segments')) AS segments_table,
       pg_size_pretty(pg_indexes_size('transcript_segments')) AS segments_indexes,
       pg_size_pretty(pg_relation_size('transcript_segments_search')) AS segments_search_index,
       pg_size_pretty(pg_total_relation_size('transcript_segments')) AS segments_total,
       pg_size_pretty(pg_relation_size('meetings')) AS meetings_table,
       pg_size_pretty(pg_relation_size('meetings_search')) AS meetings_search_index,
       (SELECT round(avg(pg_column_size(search_vector))) FROM transcript_segments) AS vector_bytes_per_segment`,
  );
  log(`sizes: ${JSON.stringify(sizes.rows[0])}`);
  for (const row of measured)
    await measure(db, row.user_id, `${row.meetings} meetings, ${row.segments} segments`);
}

async function measure(db: Knex, userId: number, size: string): Promise<void> {
  // Filters pick from the searched user's own data.
  const sample = await db('meetings')
    .where({ user_id: userId })
    .orderBy('id')
    .offset(100)
    .first('id', 'data');
  const speaker = (sample.data.participants as string[] | undefined)?.[0] ?? 'Ann Lee';
  const cases: Case[] = [
    { name: 'common word ("project")', query: { text: 'project' } },
    { name: 'common word, page 3', query: { text: 'project', offset: 200 } },
    { name: 'mid word ("invoice")', query: { text: 'invoice' } },
    { name: `rare word ("${CODE_NAMES[7]}")`, query: { text: CODE_NAMES[7]! } },
    { name: 'two words ("budget deadline")', query: { text: 'budget deadline' } },
    { name: 'phrase (`"action item"`)', query: { text: '"action item"' } },
    { name: 'or ("refund or invoice")', query: { text: 'refund or invoice' } },
    { name: 'excluded ("release -bug")', query: { text: 'release -bug' } },
    { name: 'platform teams ("release")', query: { text: 'release', platform: 'teams' } },
    {
      name: 'June 2025 ("deadline")',
      query: {
        text: 'deadline',
        from: new Date('2025-06-01T00:00:00Z'),
        to: new Date('2025-07-01T00:00:00Z'),
      },
    },
    { name: 'one speaker ("budget")', query: { text: 'budget', speaker } },
    { name: 'one meeting ("budget")', query: { text: 'budget', meetingId: sample.id } },
    { name: 'participant name ("Novak")', query: { text: 'Novak' } },
    { name: 'German stem ("Haus")', query: { text: 'Haus' } },
    { name: 'no hits ("xylophonic")', query: { text: 'xylophonic' } },
  ];
  // Said in most segments: the worst case for ranking, shown apart from the set above.
  const extreme: Case = { name: 'very common word ("think")', query: { text: 'think' } };
  const all = [...cases, extreme];

  const run = async (item: Case) => {
    const started = performance.now();
    const result = await searchTranscripts(db, userId, { limit: 100, offset: 0, ...item.query });
    return { ms: performance.now() - started, total: result.total };
  };
  for (const item of all) await run(item); // warm the cache: figures are for a warm server
  const times = new Map<Case, number[]>(all.map((item) => [item, []]));
  const totals = new Map<Case, number>();
  log(`\nuser ${userId} (${size}): ${ROUNDS} rounds of the searches in turn, 100 hits a page; ${load()}`);
  // Round after round of every search, so a burst of load on the machine falls on all of them alike.
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const item of all) {
      const { ms, total } = await run(item);
      times.get(item)!.push(ms);
      totals.set(item, total);
    }
  }
  log('| search | hits | p50 ms | p95 ms | max ms |');
  log('|---|---|---|---|---|');
  for (const item of all) {
    const list = times.get(item)!;
    log(
      `| ${item.name} | ${totals.get(item)} | ${pct(list, 50)} | ${pct(list, 95)} | ${Math.max(...list).toFixed(1)} |`,
    );
  }
  const set = cases.flatMap((item) => times.get(item)!);
  log(
    `all ${cases.length} searches (${set.length} runs, without the very common word): p50 ${pct(set, 50)} ms, p95 ${pct(set, 95)} ms, max ${Math.max(...set).toFixed(1)} ms; ${load()}`,
  );
}

function pct(values: number[], p: number): string {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(1);
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

/** A Google Meet id (xxx-xxxx-xxx) made of the number's digits as letters. */
function meetId(index: number): string {
  const letters = index
    .toString(26)
    .padStart(10, '0')
    .split('')
    .map((digit) => String.fromCharCode(97 + Number.parseInt(digit, 26)));
  return `${letters.slice(0, 3).join('')}-${letters.slice(3, 7).join('')}-${letters.slice(7).join('')}`;
}
