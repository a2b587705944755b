/**
 * One user flooding search against everyone's other requests (issue 48): GET /meetings timed one
 * request after another, alone and while one API key keeps 20 broad searches ("think", "project",
 * "release -bug": words in most of a large account's segments) in flight, on an API of its own
 * process with the default pool of 10 connections. Twice: with the search limits set out of the way
 * (`SEARCH_CONCURRENCY` = the pool, `SEARCH_CONCURRENCY_PER_USER` 1000: how the API was before the
 * limits), with only the process-wide bound (`share`: as if several accounts flooded together), and
 * with their defaults. GET /meetings is timed for the flooding key and for another user.
 *   nice -n 10 npx tsx bench/search-flood.ts [--segments 2000000] [--meetings 5000] [--seconds 20]
 *     [--searchers 20] [--modes before,share,after] [--keep] [--reuse]
 * (`--modes ''` only loads the account, with --keep.)
 * The account is loaded straight into the tables through the real triggers (a database of its own,
 * meetbot_bench_flood); --keep leaves it for another run, which --reuse runs on without loading.
 * A refused search (429, 503) is tried again after 100 ms, not after its Retry-After: a hostile
 * client doesn't wait. The per-key request rate limit is off, so what is measured is the pool.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { findOrCreateUser, issueApiKey } from '../shared/accounts/service.js';
import { createKnex, type Knex } from '../shared/infra/knex.js';
import { migrateToLatest } from '../shared/infra/migrate.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL } from '../test/support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../test/support/redis.js';
import { MeetingTalk, seededRandom } from './support/meeting-text.js';

const { values } = parseArgs({
  options: {
    segments: { type: 'string', default: '2000000' },
    meetings: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '20' },
    searchers: { type: 'string', default: '20' },
    modes: { type: 'string', default: 'before,share,after' },
    database: { type: 'string', default: 'meetbot_bench_flood' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
  },
});
const SEGMENTS = Number(values.segments);
const MEETINGS = Number(values.meetings);
const SECONDS = Number(values.seconds);
const SEARCHERS = Number(values.searchers);
const NAME = values.database;
if (!/^[a-z0-9_]+$/.test(NAME)) throw new Error('--database: lowercase letters, digits and _ only');
const POOL = 10;
const MODES: Record<string, { label: string; env: Record<string, string> }> = {
  before: {
    label: `limits out of the way (SEARCH_CONCURRENCY=${POOL}, SEARCH_CONCURRENCY_PER_USER=1000)`,
    env: { SEARCH_CONCURRENCY: String(POOL), SEARCH_CONCURRENCY_PER_USER: '1000' },
  },
  // As if several accounts flooded together: only the process-wide bound holds them.
  share: {
    label: 'only the process-wide bound (SEARCH_CONCURRENCY 5, SEARCH_CONCURRENCY_PER_USER=1000)',
    env: { SEARCH_CONCURRENCY_PER_USER: '1000' },
  },
  after: { label: 'the defaults (SEARCH_CONCURRENCY 5, SEARCH_CONCURRENCY_PER_USER 2)', env: {} },
};
const modes = values.modes.split(',').filter((mode) => mode.length > 0);
for (const mode of modes) if (!MODES[mode]) throw new Error(`--modes: before, share, after, not ${mode}`);
const BROAD = ['think', 'project', 'release -bug', 'think or project'];

const log = (line: string) => process.stdout.write(`${line}\n`);
const load = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')}`;

const admin = createKnex(TEST_POSTGRES_URL, 1);
const url = new URL(TEST_POSTGRES_URL);
url.pathname = `/${NAME}`;
const exists = (await admin.raw('SELECT 1 FROM pg_database WHERE datname = ?', [NAME])).rows.length > 0;
if (exists && !values.reuse) await admin.raw('DROP DATABASE ?? WITH (FORCE)', [NAME]);
if (!exists || !values.reuse) await admin.raw('CREATE DATABASE ??', [NAME]);
const db = createKnex(url.toString(), 4);
const prefix = uniquePrefix('bench-flood');

try {
  await migrateToLatest(db);
  const loaded = Number((await db('meetings').count({ n: '*' }))[0]?.n) > 0;
  if (!loaded) await loadData(db);
  else log(`reusing ${NAME} as it was loaded`);
  const flooder = await userWithKey(db, 'flood@example.com');
  const other = await userWithKey(db, 'other@example.com');
  const sizes = await db.raw<{ rows: Array<{ email: string; meetings: number; segments: number }> }>(
    `SELECT u.email, (SELECT count(*) FROM meetings m WHERE m.user_id = u.id)::int AS meetings,
       (SELECT count(*) FROM transcript_segments s WHERE s.user_id = u.id)::int AS segments
     FROM users u ORDER BY u.id`,
  );
  for (const row of sizes.rows) log(`${row.email}: ${row.meetings} meetings, ${row.segments} segments`);

  const rows: string[] = [];
  for (const mode of modes) {
    const { label, env } = MODES[mode]!;
    log(`\n${mode}: ${label}; ${load()}`);
    const api = await startApi(url.toString(), env);
    try {
      const base = api.url;
      // Warm up: the process's JIT and pool, the tables' pages.
      for (let index = 0; index < 20; index += 1) {
        await timed(base, '/meetings', flooder.token);
        await timed(base, '/meetings', other.token);
      }
      await timed(base, `/search?q=${encodeURIComponent(BROAD[0]!)}&limit=20`, flooder.token, 60_000);
      const alone = await meetingsFor(base, [flooder.token, other.token], SECONDS);
      rows.push(row(mode, 'alone', 'flooding key', alone[0]!));
      rows.push(row(mode, 'alone', 'another user', alone[1]!));
      log(`  alone: ${summary(alone[0]!)} | another user ${summary(alone[1]!)}; ${load()}`);

      const flood = startFlood(base, flooder.token);
      // Let the searches take what they can before measuring.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const during = await meetingsFor(base, [flooder.token, other.token], SECONDS);
      const outcomes = await flood.stop();
      const searches = Object.entries(outcomes)
        .map(([status, count]) => `${status}: ${count}`)
        .join(', ');
      rows.push(row(mode, `${SEARCHERS} searches`, 'flooding key', during[0]!, searches));
      rows.push(row(mode, `${SEARCHERS} searches`, 'another user', during[1]!, searches));
      log(`  during: ${summary(during[0]!)} | another user ${summary(during[1]!)}`);
      log(`  search answers during the flood: ${searches}; ${load()}`);
    } finally {
      await api.stop();
    }
  }
  log(`\nGET /meetings one request after another, ${SECONDS} s each, the two users in turn; ${load()}`);
  log(
    '| limits | while | GET /meetings of | answers | p50 ms | p95 ms | max ms | not 200 | searches answered (status: count) |',
  );
  log('|---|---|---|---|---|---|---|---|---|');
  for (const line of rows) log(line);
} finally {
  await db.destroy();
  if (!values.keep) await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [NAME]);
  else log(`kept database ${NAME} (run again with --reuse; drop it with DROP DATABASE ${NAME})`);
  await admin.destroy();
  const redis = createTestRedis();
  await deleteKeys(redis, prefix);
  redis.disconnect();
}
process.exit(0);

interface Timings {
  ms: number[];
  failed: number;
}

function row(mode: string, during: string, who: string, timings: Timings, searches = ''): string {
  const ms = timings.ms;
  return `| ${mode} | ${during} | ${who} | ${ms.length} | ${pct(ms, 50)} | ${pct(ms, 95)} | ${ms.length ? Math.max(...ms).toFixed(1) : '–'} | ${timings.failed} | ${searches} |`;
}

function summary(timings: Timings): string {
  return `${timings.ms.length} answers, p50 ${pct(timings.ms, 50)} ms, p95 ${pct(timings.ms, 95)} ms, ${timings.failed} not 200`;
}

/** GET /meetings for each key in turn, one request at a time, for `seconds`. */
async function meetingsFor(base: string, tokens: string[], seconds: number): Promise<Timings[]> {
  const results = tokens.map(() => ({ ms: [] as number[], failed: 0 }));
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    for (const [index, token] of tokens.entries()) {
      const answer = await timed(base, '/meetings', token);
      if (answer.status === 200) results[index]!.ms.push(answer.ms);
      else results[index]!.failed += 1;
    }
  }
  return results;
}

/** `SEARCHERS` loops of broad searches with one key, each starting its next when one answers. */
function startFlood(base: string, token: string): { stop(): Promise<Record<string, number>> } {
  let running = true;
  const outcomes: Record<string, number> = {};
  const loops = Array.from({ length: SEARCHERS }, async (_, index) => {
    let round = index;
    while (running) {
      const q = BROAD[round % BROAD.length]!;
      round += 1;
      const answer = await timed(base, `/search?q=${encodeURIComponent(q)}&limit=20`, token, 60_000);
      outcomes[answer.status] = (outcomes[answer.status] ?? 0) + 1;
      if (answer.status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

async function timed(
  base: string,
  path: string,
  token: string,
  timeoutMs = 30_000,
): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(`${base}${path}`, {
      headers: { 'X-API-Key': token },
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

async function userWithKey(database: Knex, email: string): Promise<{ id: number; token: string }> {
  const { user } = await findOrCreateUser(database, { email, maxConcurrentBots: 10 }, 3);
  const { token } = await issueApiKey(database, user.id, 'bench');
  return { id: user.id, token };
}

/** The API as its own process (as deployed), on this database, with `env` over the defaults. */
async function startApi(
  databaseUrl: string,
  env: Record<string, string>,
): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: prefix,
      API_PORT: String(port),
      LOG_LEVEL: 'fatal',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
      DATABASE_POOL_MAX: String(POOL),
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/readyz`, child);
  return {
    url: base,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/** The flooding user's meetings over two years, then their segments, a meeting at a time. */
async function loadData(database: Knex): Promise<void> {
  const random = seededRandom(48);
  const talk = new MeetingTalk(random);
  const { user } = await findOrCreateUser(database, { email: 'flood@example.com', maxConcurrentBots: 10 }, 3);
  const { user: other } = await findOrCreateUser(
    database,
    { email: 'other@example.com', maxConcurrentBots: 10 },
    3,
  );
  const started = performance.now();
  const weights = Array.from({ length: MEETINGS }, () => 0.15 + random() ** 2 * 3);
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const counts = weights.map((weight) => Math.max(1, Math.round((weight / weightSum) * SEGMENTS)));
  const first = Date.UTC(2025, 0, 6, 8);
  const span = 700 * 86_400_000;
  const meetings: Array<{ id: number; participants: string[]; start: number }> = [];
  const meetingRows = [];
  // The other user: 200 meetings without segments (what GET /meetings reads is the same).
  for (let index = 0; index < MEETINGS + 200; index += 1) {
    const own = index < MEETINGS;
    const participants = talk.participants();
    const start = first + Math.floor(((own ? index : index - MEETINGS) / MEETINGS) * span);
    meetingRows.push({
      user_id: own ? user.id : other.id,
      platform: 'google_meet',
      native_meeting_id: meetId(index),
      status: 'completed',
      meeting_url: `https://meet.google.com/${meetId(index)}`,
      bot_name: 'Bench',
      language: 'en',
      data: JSON.stringify({ name: talk.meetingName(), participants }),
      start_time: new Date(start),
      end_time: new Date(start + (counts[index] ?? 1) * 5_000),
      created_at: new Date(start - 60_000),
    });
    if (own) meetings.push({ id: 0, participants, start });
  }
  for (let offset = 0; offset < meetingRows.length; offset += 1000) {
    const ids: Array<{ id: number }> = await database('meetings')
      .insert(meetingRows.slice(offset, offset + 1000))
      .returning('id');
    ids.forEach((inserted, index) => {
      if (offset + index < MEETINGS) meetings[offset + index]!.id = inserted.id;
    });
  }

  const BATCH = 5000;
  let batch = emptyBatch();
  let written = 0;
  const flush = async () => {
    if (batch.meeting.length === 0) return;
    await database.raw(
      `INSERT INTO transcript_segments (meeting_id, segment_id, start_seconds, end_seconds, text, speaker,
         language, absolute_start_time, absolute_end_time, is_final)
       SELECT * FROM unnest(?::integer[], ?::text[], ?::float8[], ?::float8[], ?::text[], ?::text[],
         ?::text[], ?::timestamptz[], ?::timestamptz[], ?::boolean[])`,
      [
        batch.meeting,
        batch.segment,
        batch.start,
        batch.end,
        batch.text,
        batch.speaker,
        batch.language,
        batch.absoluteStart,
        batch.absoluteEnd,
        batch.final,
      ] as unknown as Knex.RawBinding[],
    );
    written += batch.meeting.length;
    batch = emptyBatch();
    if (written % 200_000 < BATCH) log(`  ${written} segments, ${seconds(started)}`);
  };
  for (const [index, meeting] of meetings.entries()) {
    let at = 0;
    for (let number = 0; number < counts[index]!; number += 1) {
      const text = talk.sentence('en');
      const duration = 1 + text.length / 15;
      batch.meeting.push(meeting.id);
      batch.segment.push(`seg-${number}`);
      batch.start.push(at);
      batch.end.push(at + duration);
      batch.text.push(text);
      batch.speaker.push(meeting.participants[Math.floor(random() * meeting.participants.length)]!);
      batch.language.push('en');
      batch.absoluteStart.push(new Date(meeting.start + at * 1000).toISOString());
      batch.absoluteEnd.push(new Date(meeting.start + (at + duration) * 1000).toISOString());
      batch.final.push(true);
      at += duration + random() * 2;
      if (batch.meeting.length >= BATCH) await flush();
    }
  }
  await flush();
  log(`loaded ${MEETINGS} meetings, ${written} segments in ${seconds(started)} (through the triggers)`);
  const vacuumed = performance.now();
  await database.raw('VACUUM ANALYZE');
  log(`VACUUM ANALYZE ${seconds(vacuumed)}`);
}

function emptyBatch() {
  return {
    meeting: [] as number[],
    segment: [] as string[],
    start: [] as number[],
    end: [] as number[],
    text: [] as string[],
    speaker: [] as string[],
    language: [] as string[],
    absoluteStart: [] as string[],
    absoluteEnd: [] as string[],
    final: [] as boolean[],
  };
}

function pct(list: number[], p: number): string {
  if (list.length === 0) return '–';
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!.toFixed(1);
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

/** A distinct Google Meet id (xxx-xxxx-xxx) for each number. */
function meetId(n: number): string {
  let letters = '';
  for (let rest = n, index = 0; index < 10; index += 1, rest = Math.floor(rest / 26)) {
    letters += String.fromCharCode(97 + (rest % 26));
  }
  return `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

async function waitForHttp(target: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if (child.exitCode !== null) throw new Error('the API exited');
    try {
      if ((await fetch(target)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${target} never answered`);
}
