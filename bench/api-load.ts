/**
 * API reads at meeting scale, next to a bare Node server answering 5 KB of JSON in the same run:
 * GET /transcripts of a 5,000-segment meeting, GET /meetings at its default page (200 meetings
 * stored), and POST /bots up to the user's limit. The API runs as its own process, as deployed.
 *   npx tsx bench/api-load.ts [--connections 50] [--seconds 20] [--segments 5000] [--meetings 200]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { findOrCreateUser, issueApiKey } from '../shared/accounts/service.js';
import { createTestDatabase } from '../test/support/database.js';
import { TEST_REDIS_URL } from '../test/support/env.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../test/support/redis.js';
import { freePort, waitForHttp } from './support/api-process.js';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '20' },
    segments: { type: 'string', default: '5000' },
    meetings: { type: 'string', default: '200' },
    /** Run only these (comma-separated): transcripts, meetings, bots. */
    only: { type: 'string', default: 'transcripts,meetings,bots' },
  },
});
const connections = Number(values.connections);
const seconds = Number(values.seconds);
const only = new Set(values.only.split(','));

const database = await createTestDatabase();
const prefix = uniquePrefix('bench-api');
const { user } = await findOrCreateUser(
  database.db,
  { email: 'bench@example.com', maxConcurrentBots: 100_000 },
  3,
);
const { token } = await issueApiKey(database.db, user.id, 'bench');

// 200 meetings with a little metadata; the newest has 5,000 segments (a two-hour meeting).
const meetingIds: number[] = [];
for (let index = 0; index < Number(values.meetings); index += 1) {
  const [row] = await database
    .db('meetings')
    .insert({
      user_id: user.id,
      platform: 'google_meet',
      native_meeting_id: meetId(index),
      status: 'completed',
      meeting_url: 'https://meet.google.com/ben-chxx-xxx',
      bot_name: 'Bench',
      data: JSON.stringify({ name: `Weekly sync ${index}`, participants: ['Ann', 'Bo', 'Cy'] }),
      start_time: new Date(Date.UTC(2026, 10, 1, 9) + index * 86_400_000),
      end_time: new Date(Date.UTC(2026, 10, 1, 11) + index * 86_400_000),
    })
    .returning('id');
  meetingIds.push(row.id);
}
const transcriptMeeting = await database
  .db('meetings')
  .insert({
    user_id: user.id,
    platform: 'google_meet',
    native_meeting_id: 'lon-gmee-ting',
    status: 'completed',
    meeting_url: 'https://meet.google.com/lon-gmee-ting',
    bot_name: 'Bench',
    start_time: new Date(Date.UTC(2026, 10, 20, 9)),
    end_time: new Date(Date.UTC(2026, 10, 20, 11)),
  })
  .returning('id')
  .then(([row]) => row.id as number);
const speakers = ['Ann Example', 'Bo Example', 'Cy Example', null];
const base = Date.UTC(2026, 10, 20, 9);
const segments = Array.from({ length: Number(values.segments) }, (_, index) => ({
  meeting_id: transcriptMeeting,
  segment_id: `seg-${index}`,
  start_seconds: index * 1.4,
  end_seconds: index * 1.4 + 1.3,
  text: 'we should ship the capacity work before the end of the month and measure it again',
  speaker: speakers[index % speakers.length],
  language: 'en',
  absolute_start_time: new Date(base + index * 1400),
  absolute_end_time: new Date(base + index * 1400 + 1300),
  is_final: true,
}));
for (let index = 0; index < segments.length; index += 1000) {
  await database.db('transcript_segments').insert(segments.slice(index, index + 1000));
}

// The bare floor: Node answering 5 KB of JSON, in its own process like the API.
const bare = spawn(
  process.execPath,
  [
    '-e',
    `const body = JSON.stringify({ items: Array.from({ length: 40 }, (_, i) => ({ id: i, text: 'x'.repeat(100) })) });
     require('node:http').createServer((_req, res) => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end(body); })
       .listen(0, '127.0.0.1', function () { console.log(this.address().port); });`,
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const barePort = Number(String((await once(bare.stdout!, 'data'))[0]).trim());

const port = await freePort();
// BENCH_PROFILE=dir writes the API's CPU profile there (open it in Chrome DevTools).
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_PROFILE] : [];
const api = spawn(process.execPath, [...profile, '--import', 'tsx', 'api/main.ts'], {
  env: {
    ...process.env,
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    API_PORT: String(port),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '0',
    DATABASE_POOL_MAX: '10',
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
await waitForHttp(`http://127.0.0.1:${port}/readyz`, api, 100);

interface Figure {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  bytes: number;
}

async function load(name: string, options: autocannon.Options): Promise<Figure> {
  // A short warm-up (JIT, connection pools), then the measured run.
  await autocannon({ ...options, duration: 2, connections });
  const result = await autocannon({ ...options, duration: seconds, connections });
  return {
    name,
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    bytes: result.throughput.total / Math.max(1, result.requests.total),
  };
}

const headers = { 'X-API-Key': token };
const apiUrl = `http://127.0.0.1:${port}`;
const figures: Figure[] = [];
try {
  figures.push(await load('bare Node, 5 KB JSON', { url: `http://127.0.0.1:${barePort}/` }));
  if (only.has('transcripts'))
    figures.push(
      await load(`GET /transcripts (${values.segments} segments)`, {
        url: `${apiUrl}/transcripts/google_meet/lon-gmee-ting`,
        headers,
      }),
    );
  if (only.has('meetings'))
    figures.push(
      await load(`GET /meetings (default page, ${values.meetings} stored)`, {
        url: `${apiUrl}/meetings`,
        headers,
      }),
    );
  let counter = 0;
  if (only.has('bots'))
    figures.push(
      await load('POST /bots (new meeting each, queue only)', {
        url: `${apiUrl}/bots`,
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        requests: [
          {
            setupRequest: (request) => {
              counter += 1;
              request.body = JSON.stringify({
                platform: 'google_meet',
                native_meeting_id: meetId(1_000_000 + counter),
              });
              return request;
            },
          },
        ],
      }),
    );

  // One request alone on a warm process, right after a new segment (built from Postgres), then kept.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const colds: number[] = [];
  const kept: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    await database
      .db('transcript_segments')
      .insert({ ...segments[0], segment_id: `seg-late-${round}`, start_seconds: 9999 });
    const timed = await timeOne(`${apiUrl}/transcripts/google_meet/lon-gmee-ting`, headers);
    colds.push(timed.first);
    kept.push(timed.best);
  }
  await database.db('transcript_segments').where('segment_id', 'like', 'seg-late-%').delete();
  const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const single = { first: median(colds), best: median(kept) };
  const floor = figures[0]!.rps;
  console.log(
    `\nconnections ${connections}, ${seconds} s each; one GET /transcripts alone: ${single.first.toFixed(1)} ms first (from Postgres), ${single.best.toFixed(1)} ms after (kept), medians of 5`,
  );
  console.log('| request | req/s | p50 ms | p99 ms | × bare | bytes | errors |');
  console.log('|---|---|---|---|---|---|---|');
  for (const figure of figures) {
    console.log(
      `| ${figure.name} | ${figure.rps.toFixed(0)} | ${figure.p50} | ${figure.p99} | ${(figure.rps / floor).toFixed(3)} | ${figure.bytes.toFixed(0)} | ${figure.errors} |`,
    );
  }
} finally {
  api.kill('SIGTERM');
  bare.kill('SIGTERM');
  await Promise.all([once(api, 'exit'), once(bare, 'exit')]);
  const redis = createTestRedis();
  await deleteKeys(redis, prefix);
  redis.disconnect();
  await database.drop();
}

/** A distinct Google Meet id (xxx-xxxx-xxx) for each number. */
function meetId(n: number): string {
  let letters = '';
  for (let rest = n, index = 0; index < 10; index += 1, rest = Math.floor(rest / 26)) {
    letters += String.fromCharCode(97 + (rest % 26));
  }
  return `${letters.slice(0, 3)}-${letters.slice(3, 7)}-${letters.slice(7)}`;
}

/** The first answer (built from the database) and the fastest of 9 more (built once, then kept). */
async function timeOne(
  url: string,
  requestHeaders: Record<string, string>,
): Promise<{ first: number; best: number }> {
  const times: number[] = [];
  for (let index = 0; index < 10; index += 1) {
    const started = performance.now();
    const response = await fetch(url, { headers: requestHeaders });
    await response.arrayBuffer();
    times.push(performance.now() - started);
  }
  return { first: times[0]!, best: Math.min(...times.slice(1)) };
}
