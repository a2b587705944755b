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
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { createKnex } from '../shared/infra/knex.js';
import { migrateToLatest } from '../shared/infra/migrate.js';
import { TEST_POSTGRES_URL } from '../test/support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../test/support/redis.js';
import { startApi } from './support/api-process.js';
import { loadFloodAccount, userWithKey } from './support/flood-account.js';
import { meetingsFor, row, startFlood, summary, timed } from './support/timed-requests.js';

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
  if (!loaded) await loadFloodAccount(db, { meetings: MEETINGS, segments: SEGMENTS }, log);
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
    const api = await startApi(url.toString(), env, { queuePrefix: prefix, pool: POOL });
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

      const flood = startFlood(base, flooder.token, SEARCHERS, BROAD);
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
