/**
 * One bot in one simulated meeting with three speakers: prints the join time (bot started → in the
 * call, the meeting admitting it after 1 s in the lobby), speech-end → segment-published latency
 * (p50/p95), CPU and peak memory (PSS) per process kind (Node, Chromium, pocketsphinx) while in the
 * call, and the WER. `all` runs the three platforms one after another and ends with a table of them
 * side by side, from the same run.
 *   npx tsx bench/bot-latency.ts [google_meet|teams|zoom|all]
 * (needs Redis on 127.0.0.1:6379, Chromium, flite and pocketsphinx).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import { type TranscriptSegmentMessage, transcriptSegmentMessage } from '../shared/contract/events.js';
import { decodeStreamEntry } from '../shared/contract/stream-codec.js';
import { botSessionStream } from '../shared/contract/streams.js';
import { SimulatorClient } from '../simulator/client.js';
import { createSimulator } from '../simulator/server.js';
import { startBot } from '../test/e2e/bot/bot-harness.js';
import { wordErrorRate } from '../test/support/wer.js';

const PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;
type Platform = (typeof PLATFORMS)[number];
const asked = process.argv[2] ?? 'google_meet';
if (asked !== 'all' && !PLATFORMS.includes(asked as Platform)) {
  console.error(`usage: npx tsx bench/bot-latency.ts [${PLATFORMS.join('|')}|all]`);
  process.exit(2);
}
const platforms: Platform[] = asked === 'all' ? [...PLATFORMS] : [asked as Platform];
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TICKS_PER_SECOND = 100;
const PAGE_SIZE_KB = 4;

const SCRIPT = [
  {
    name: 'Alice Archer',
    at: 1,
    text: 'Good morning everyone. Let us review the project schedule for this week.',
  },
  { name: 'Bob Baker', at: 7, text: 'The design work is finished and the testing will start on Monday.' },
  { name: 'Carol Cooper', at: 13, text: 'Thank you. I will send the report to the team tomorrow morning.' },
  { name: 'Alice Archer', at: 19, text: 'Great. Please tell the customer about the new release date.' },
  { name: 'Bob Baker', at: 25, text: 'I will call them this afternoon and write down their questions.' },
  { name: 'Carol Cooper', at: 31, text: 'Then we meet again next week at the same time.' },
];

type Kind = 'node' | 'chromium' | 'pocketsphinx';

interface ProcSample {
  kind: Kind;
  cpuTicks: number;
  memoryKb: number;
}

/** Proportional set size: shared pages split between the processes sharing them, so sums add up. */
function readPssKb(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function readProc(pid: number): { ppid: number; comm: string; ticks: number; rssPages: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    return {
      ppid: Number(fields[1]),
      comm,
      ticks: Number(fields[11]) + Number(fields[12]),
      rssPages: Number(fields[21]),
    };
  } catch {
    return null;
  }
}

/** Every process under `root` (inclusive), classified. */
function sampleTree(root: number): Map<number, ProcSample> {
  const all = new Map<number, { ppid: number; comm: string; ticks: number; rssPages: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProc(Number(entry));
    if (info) all.set(Number(entry), info);
  }
  const inTree = new Set<number>([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, info] of all) {
      if (!inTree.has(pid) && inTree.has(info.ppid)) {
        inTree.add(pid);
        grew = true;
      }
    }
  }
  const result = new Map<number, ProcSample>();
  for (const pid of inTree) {
    const info = all.get(pid);
    if (!info) continue;
    const kind: Kind = info.comm.startsWith('pocketsphinx')
      ? 'pocketsphinx'
      : /chrom/i.test(info.comm)
        ? 'chromium'
        : 'node';
    result.set(pid, { kind, cpuTicks: info.ticks, memoryKb: readPssKb(pid) || info.rssPages * PAGE_SIZE_KB });
  }
  return result;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

interface PlatformResult {
  platform: Platform;
  joinSeconds: number | null;
  p50: number;
  p95: number;
  cores: number;
  peakMiB: number;
  wer: number;
}

const simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
const client = new SimulatorClient(simulator.url);
const redis = new Redis(REDIS_URL);
const prefix = `mbt-bench-${randomUUID().slice(0, 8)}`;
const participants = [...new Set(SCRIPT.map((line) => line.name))].map((name) => ({
  name,
  utterances: SCRIPT.filter((line) => line.name === name).map(({ at, text }) => ({ at, text })),
}));

/** One meeting with a bot on the host, on `platform`: its figures, printed and returned. */
async function runOnce(platform: Platform): Promise<PlatformResult> {
  const meeting = await client.createMeeting({
    platform,
    admission: { policy: 'after', delaySeconds: 1 },
    participants,
    endAt: 38,
  });
  const startedAt = Date.now();
  // The bot program as a child process, as the e2e tests and bench/time-base.ts start it.
  const bot = startBot(
    { platform, meetingUrl: meeting.url, redisUrl: REDIS_URL, logLevel: 'warn' },
    prefix,
    simulator.url,
  );
  const { sessionId } = bot.config;
  const { exited } = bot;

  // Per-process CPU ticks at the first and last in-call samples; peak RSS per kind (sum of its processes).
  const firstTicks = new Map<number, ProcSample>();
  const lastTicks = new Map<number, ProcSample>();
  const peakRss: Record<Kind, number> = { node: 0, chromium: 0, pocketsphinx: 0 };
  let inCallFrom: number | null = null;
  let inCallTo = 0;
  let done = false;
  void exited.then(() => {
    done = true;
  });
  while (!done) {
    const snapshot = await client.getMeeting(meeting.id).catch(() => null);
    const inCall = snapshot?.bot.state === 'in_call';
    const tree = sampleTree(bot.pid!);
    const rss: Record<Kind, number> = { node: 0, chromium: 0, pocketsphinx: 0 };
    for (const sample of tree.values()) rss[sample.kind] += sample.memoryKb;
    for (const kind of Object.keys(rss) as Kind[]) peakRss[kind] = Math.max(peakRss[kind], rss[kind]);
    if (inCall) {
      const now = Date.now();
      if (inCallFrom === null) inCallFrom = now;
      inCallTo = now;
      for (const [pid, sample] of tree) {
        if (!firstTicks.has(pid)) firstTicks.set(pid, sample);
        lastTicks.set(pid, sample);
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const exitCode = await exited;
  // Its log is kept, not streamed: shown when it failed.
  if (exitCode !== 0) console.log(bot.output().slice(-3000));

  function decodedSegment(fields: string[]): TranscriptSegmentMessage {
    const decoded = decodeStreamEntry(transcriptSegmentMessage, fields);
    if (!decoded.ok) throw new Error(decoded.reason);
    return decoded.value;
  }
  const entries = await redis.xrange(botSessionStream(prefix, sessionId, 'segments'), '-', '+');
  const published = entries.map(([id, fields]) => ({
    at: Number(id.split('-')[0]),
    segment: decodedSegment(fields),
  }));
  const finals = new Map<string, { at: number; segment: TranscriptSegmentMessage }>();
  for (const entry of published) if (entry.segment.final) finals.set(entry.segment.segmentId, entry);
  const final = [...finals.values()].filter((entry) => entry.segment.text.trim() !== '');

  const after = await client.getMeeting(meeting.id);
  const played = after.utterances;
  const inCallAt = after.bot.history.find((entry) => entry.state === 'in_call')?.at;
  const joinedAt = inCallAt === undefined ? null : Date.parse(inCallAt);
  const latencies: number[] = [];
  for (const utterance of played) {
    if (!utterance.startedAt || !utterance.endedAt) continue;
    const from = Date.parse(utterance.startedAt);
    const to = Date.parse(utterance.endedAt);
    const mine = final.filter(
      (entry) =>
        Date.parse(entry.segment.absoluteEndTime) > from && Date.parse(entry.segment.absoluteStartTime) < to,
    );
    if (mine.length > 0) latencies.push(Math.max(...mine.map((entry) => entry.at)) - to);
  }
  const wer = wordErrorRate(
    SCRIPT.map((line) => line.text).join(' '),
    final.map((entry) => entry.segment.text).join(' '),
  );

  const seconds = inCallFrom === null ? 0 : (inCallTo - inCallFrom) / 1000;
  const cores: Record<Kind, number> = { node: 0, chromium: 0, pocketsphinx: 0 };
  for (const [pid, last] of lastTicks) {
    const first = firstTicks.get(pid)!;
    cores[last.kind] += (last.cpuTicks - first.cpuTicks) / TICKS_PER_SECOND;
  }
  const format = (kind: Kind) =>
    `${kind.padEnd(13)} ${(seconds > 0 ? cores[kind] / seconds : 0).toFixed(2)} core   peak ${(peakRss[kind] / 1024).toFixed(0)} MiB`;

  const joinSeconds = joinedAt === null ? null : (joinedAt - startedAt) / 1000;
  console.log(`\nbot-latency (${platform}), bot exit ${exitCode}, ${seconds.toFixed(0)} s in the call`);
  console.log(
    `join: bot started → in the call ${joinSeconds === null ? 'never' : `${joinSeconds.toFixed(1)} s`}`,
  );
  console.log(
    `speech end → final segment published: p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms (${latencies.length}/${played.length} utterances)`,
  );
  console.log('CPU while in the call (average) and peak memory (PSS) per process kind:');
  for (const kind of ['node', 'chromium', 'pocketsphinx'] as const) console.log(`  ${format(kind)}`);
  const totalCores = (cores.node + cores.chromium + cores.pocketsphinx) / Math.max(seconds, 1);
  console.log(
    `  total         ${totalCores.toFixed(2)} core   peak ${((peakRss.node + peakRss.chromium + peakRss.pocketsphinx) / 1024).toFixed(0)} MiB (sum of peaks)`,
  );
  console.log(`WER ${(wer.rate * 100).toFixed(1)} % over ${wer.referenceWords} words`);
  return {
    platform,
    joinSeconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    cores: totalCores,
    peakMiB: (peakRss.node + peakRss.chromium + peakRss.pocketsphinx) / 1024,
    wer: wer.rate,
  };
}

const results: PlatformResult[] = [];
for (const platform of platforms) results.push(await runOnce(platform));
if (results.length > 1) {
  console.log('\nside by side (one run, one platform at a time):');
  console.log('| platform | join (s) | lag p50 (ms) | lag p95 (ms) | CPU (cores) | peak PSS (MiB) | WER |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.platform} | ${r.joinSeconds?.toFixed(1) ?? 'never'} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.cores.toFixed(2)} | ${r.peakMiB.toFixed(0)} | ${(r.wer * 100).toFixed(1)} % |`,
    );
  }
}

const keys = await redis.keys(`${prefix}:*`);
if (keys.length > 0) await redis.del(...keys);
redis.disconnect();
await simulator.close();
