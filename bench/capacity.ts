/**
 * How many meetings this machine transcribes in real time: N bots through the full stack (API →
 * worker → bot containers) into N simulated Google Meet meetings with continuous scripted speech,
 * for N = 1, 2, 4, 6, 8 (or `--n 1,2,3`), each meeting `--seconds` long (180). Per N it prints:
 * bots admitted, utterances the bots missed (played in full, no segment over them), WER, segment lag
 * (end of speech on the simulator's clock → segment committed) p50/p95 in each half of the meeting, per-bot memory (as `docker stats` shows it) and CPU, and machine CPU; and how far
 * the segments' absolute times sit from when the voices were heard, early and late in the meeting.
 * It stops at the first N that falls behind and says why (`--all` goes on through every N). Bots are
 * requested all at once, or `--stagger` seconds apart (the meetings' speech starts as each bot is in). The
 * lag is also printed per 30 s of the meeting, which shows a backlog from the joins apart from one
 * that grows.
 *
 * `--floor` measures, after each round, the floor in the same stack: N bare Chromiums from the bot
 * image, launched as bots launch theirs (bench/chromium-floor.mjs), each in a meeting like the bots'
 * (same participants and load) with no capture, recognizer or bot, sampled the same way from when
 * all are in the call to the meetings' end: CPU and memory per page, and the machine's CPU.
 *
 *   npx tsx bench/capacity.ts [--n 1,2,4,6,8] [--seconds 180] [--platform google_meet|teams|zoom]
 *     [--load none|realistic] [--floor] [--all] [--no-pss] [--stagger 0] [--logs DIR]
 *   (the worker settings in PASSED_THROUGH, bench/support/worker-settings.ts, are passed on from the environment)
 *
 * `--logs DIR` keeps every bot's whole log (followed from its container's start, since the worker
 * removes a container when its bot exits); a bot that never reached the call has its last lines
 * printed either way.
 *
 * `--load realistic` gives every meeting the benchmarks' realistic load (issue 31: six participants,
 * three of them silent, every camera on as WebRTC video, a 1080p screen share half the time, the
 * real client's page weight; simulator/schema.ts REALISTIC_LOAD); `none` (the default, as the
 * earlier figures were measured) is three speakers' audio only.
 *
 * Needs what the e2e tests need (Docker, the bot image, Postgres, Redis, flite); run it on an
 * otherwise idle machine.
 */
import { parseArgs } from 'node:util';
import { sleep } from '../shared/infra/async.js';
import { createLogger } from '../shared/infra/logger.js';
import { listTransitions } from '../shared/meetings/transitions-store.js';
import type { CreateMeetingInput } from '../simulator/client.js';
import { continuousSpeech } from '../test/support/speech-script.js';
import { median } from '../test/support/speech-timing.js';
import { startStack } from '../test/support/stack.js';
import { HEALTH_EVENT_REASONS } from '../worker/ingest/transcription-health.js';
import { DockerRuntime } from '../worker/runtime/docker-runtime.js';
import {
  type CaptureClockReading,
  type FollowedBotLog,
  followBotLogOnceStarted,
  saveBotLogs,
} from './support/bot-log.js';
import { sampleContainers } from './support/container-sampler.js';
import { type FloorResult, floorRound } from './support/floor-round.js';
import { reportJoins, reportNotAdmitted } from './support/join-report.js';
import { machineCoresSince, machineCpuTicks } from './support/machine-cpu.js';
import { percentile } from './support/percentile.js';
import { loadArg, platformArg } from './support/scenario-args.js';
import { measureSegmentLag, type SegmentLag } from './support/segment-lag.js';
import { passedThrough } from './support/worker-settings.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '1,2,4,6,8' },
    seconds: { type: 'string', default: '180' },
    platform: { type: 'string', default: 'google_meet' },
    load: { type: 'string', default: 'none' },
    /** Read each bot's PSS too (walks its processes' page tables every 5 s). */
    pss: { type: 'boolean', default: true },
    /** After each round, N bare Chromiums on meetings like the bots' (the floor). */
    floor: { type: 'boolean', default: false },
    /** Go on after an N that falls behind. */
    all: { type: 'boolean', default: false },
    /** Seconds between one bot's request and the next (0: all at once). */
    stagger: { type: 'string', default: '0' },
    /** A directory for every bot's whole log, one file per meeting of each round. */
    logs: { type: 'string' },
  },
  allowNegative: true,
});
const COUNTS = values.n
  .split(',')
  .map(Number)
  .filter((n) => Number.isInteger(n) && n > 0);
const SECONDS = Number(values.seconds);
const STAGGER_SECONDS = Number(values.stagger);
if (!(STAGGER_SECONDS >= 0)) throw new Error(`--stagger must be a number of seconds, got ${values.stagger}`);
const PLATFORM = platformArg(values.platform);
const { load: LOAD, silent: SILENT } = loadArg(values.load);
/** Falling behind: a lag p95 above this, or growing this much from the first half to the second. */
const MAX_LAG_P95_SECONDS = 3;
const MAX_LAG_GROWTH_SECONDS = 1;
/** Said when WER is this much above the first (fewest bots) round's. */
const MAX_WER_RISE = 0.02;
let firstWer: number | undefined;

interface RoundResult extends SegmentLag {
  n: number;
  admitted: number;
  memoryMiB: number[];
  pssMiB: number[];
  cpuCores: number[];
  machineCores: number;
  /** The bots' own lagging and dropped-audio reports. */
  health: string[];
  /** Each bot's capture-clock readings, once a minute (bench/support/bot-log.ts). */
  captureClocks: CaptureClockReading[][];
  behind: string[];
  floor?: FloorResult;
}

/** One meeting of the bench's scenario: three speakers without pause (and the silent ones and load). */
function scenario(): CreateMeetingInput {
  return {
    platform: PLATFORM,
    admission: { policy: 'after', delaySeconds: 1 },
    participants: [...continuousSpeech(SECONDS), ...SILENT],
    endAt: SECONDS,
    ...(LOAD && { load: LOAD }),
  };
}

async function round(n: number): Promise<RoundResult> {
  const stack = await startStack({
    workerEnv: {
      BOT_SLOTS: String(n),
      RECONCILE_INTERVAL_SECONDS: '5',
      LOG_LEVEL: 'warn',
      WORKER_METRICS_PORT: '0',
      ...passedThrough(),
    },
  });
  const runtime = new DockerRuntime(stack.docker, createLogger('capacity', 'silent'));
  try {
    stack.startWorker('capacity-worker');
    const meetings: Array<{ meetingId: number; nativeId: string }> = [];
    const logs: Array<Promise<FollowedBotLog | null>> = [];
    for (let index = 0; index < n; index += 1) {
      if (index > 0 && STAGGER_SECONDS > 0) await sleep(STAGGER_SECONDS * 1000);
      const meeting = await stack.createMeetingAndBot(scenario());
      meetings.push(meeting);
      logs.push(followBotLogOnceStarted(stack, meeting.meetingId));
    }
    const admitted = (
      await Promise.all(
        meetings.map((m) =>
          stack
            .waitForStatus(m.meetingId, ['active', 'failed', 'completed'], 300_000)
            .then((seen) => seen.at(-1)),
        ),
      )
    ).filter((status) => status === 'active').length;
    const joined = await Promise.all(
      meetings.map(async ({ meetingId }) => ({ meetingId, transitions: await stack.transitions(meetingId) })),
    );
    const botLogs = await Promise.all(logs);
    if (admitted < n) reportNotAdmitted(joined, botLogs);
    reportJoins(joined);

    // Sample each bot's memory and CPU, and the machine's CPU, while the meetings run.
    const machineStart = machineCpuTicks();
    const sampler = sampleContainers(
      stack,
      runtime,
      async () => {
        const ids: string[] = [];
        for (const meeting of meetings) {
          const [container] = await stack.containersOf(meeting.meetingId);
          if (container?.State === 'running') ids.push(container.Id);
        }
        return ids;
      },
      values.pss,
    );
    await Promise.all(
      meetings.map((m) => stack.waitForStatus(m.meetingId, ['completed', 'failed'], (SECONDS + 120) * 1000)),
    );
    sampler.stop();
    for (const log of botLogs) log?.stop();
    // Each bot's capture-clock readings (where audio waits in its page), from its log.
    const captureClocks = botLogs.map((log) => log?.readings ?? []);
    if (values.logs) saveBotLogs(values.logs, n, meetings, botLogs);
    const machineCores = machineCoresSince(machineStart);
    const { memoryMiB, pssMiB, cpuCores } = sampler;

    const { missed, utterances, wer, lagFirst, lagSecond, lagTimeline, offsets } = await measureSegmentLag(
      stack,
      meetings,
      SECONDS,
    );
    // What the bots said of themselves (issue 15's lag awareness): lagging and dropped-audio events.
    const behindReasons: Array<string | null> = [
      HEALTH_EVENT_REASONS.lagging,
      HEALTH_EVENT_REASONS.audio_dropped,
    ];
    const health = (
      await Promise.all(meetings.map((meeting) => listTransitions(stack.api.database.db, meeting.meetingId)))
    )
      .flat()
      .filter((transition) => behindReasons.includes(transition.reason))
      .map((transition) => `${transition.reason}: ${transition.detail}`);

    const behind: string[] = [];
    if (admitted < n) behind.push(`${n - admitted} of ${n} bots were not admitted`);
    if (missed > 0) behind.push(`${missed} utterances missed`);
    const p95First = percentile(lagFirst, 95);
    const p95Second = percentile(lagSecond, 95);
    if (Math.max(p95First, p95Second) > MAX_LAG_P95_SECONDS)
      behind.push(`segment lag p95 ${Math.max(p95First, p95Second).toFixed(1)} s > ${MAX_LAG_P95_SECONDS} s`);
    if (p95Second - p95First > MAX_LAG_GROWTH_SECONDS)
      behind.push(`lag grows: p95 ${p95First.toFixed(1)} s → ${p95Second.toFixed(1)} s`);
    return {
      n,
      admitted,
      missed,
      utterances,
      wer,
      lagFirst,
      lagSecond,
      lagTimeline,
      offsets,
      memoryMiB,
      pssMiB,
      cpuCores,
      machineCores,
      health,
      captureClocks,
      behind,
      ...(values.floor && {
        floor: await floorRound(stack, runtime, n, { platform: PLATFORM, seconds: SECONDS, scenario }),
      }),
    };
  } finally {
    await stack.close();
  }
}

const fmt = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
console.log(
  `capacity: ${PLATFORM}, ${SECONDS} s meetings, continuous speech from 3 speakers${LOAD ? ' and 3 silent, realistic load (every camera on, a screen share half the time, page weight)' : ''}, BOT_SKIP_VIDEO ${process.env.BOT_SKIP_VIDEO ?? 'as configured'}; N = ${COUNTS.join(', ')}`,
);
console.log(
  '| N | admitted | missed | WER | lag p50/p95 1st half (s) | lag p50/p95 2nd half (s) | memory per bot avg/max (MiB) | PSS per bot avg (MiB) | CPU per bot avg (cores) | machine CPU (cores) |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const n of COUNTS) {
  const result = await round(n);
  firstWer ??= result.wer;
  // Said, not a stop: with a few hundred words a round, two points is a handful of words, and the
  // recognizer's segmentation varies from run to run even on an idle machine.
  const werNote =
    result.wer > firstWer + MAX_WER_RISE
      ? `N = ${n}: WER ${fmt(result.wer * 100, 1)} % is over ${fmt(MAX_WER_RISE * 100, 0)} points above the first round's ${fmt(firstWer * 100, 1)} %`
      : null;
  const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(
    `| ${n} | ${result.admitted}/${n} | ${result.missed}/${result.utterances} | ${fmt(result.wer * 100, 1)} % | ` +
      `${fmt(percentile(result.lagFirst, 50))} / ${fmt(percentile(result.lagFirst, 95))} | ` +
      `${fmt(percentile(result.lagSecond, 50))} / ${fmt(percentile(result.lagSecond, 95))} | ` +
      `${fmt(average(result.memoryMiB), 0)} / ${fmt(Math.max(...result.memoryMiB), 0)} | ${fmt(average(result.pssMiB), 0)} | ${fmt(average(result.cpuCores))} | ` +
      `${fmt(result.machineCores)} |`,
  );
  if (werNote) console.log(werNote);
  const { offsets } = result;
  console.log(
    `  times: segment start/end − voice start/end, median, first fifth ${fmt(median(offsets.firstStart), 0)} / ${fmt(median(offsets.firstEnd), 0)} ms, ` +
      `last fifth ${fmt(median(offsets.lastStart), 0)} / ${fmt(median(offsets.lastEnd), 0)} ms; drift per bot ${offsets.drift.map((d) => fmt(d, 0)).join(', ')} ms/hour`,
  );
  console.log(
    `  the bots' own reports: ${result.health.length === 0 ? 'none lagging' : result.health.join('; ')}`,
  );
  const windows = new Map<number, Array<{ lag: number; heardLate: number }>>();
  for (const entry of result.lagTimeline) {
    const window = Math.floor(entry.at / 30) * 30;
    windows.set(window, [...(windows.get(window) ?? []), entry]);
  }
  const perWindow = [...windows.entries()].sort(([a], [b]) => a - b);
  /** p95 of one part of the lag in each half-minute of the meeting. */
  const p95PerWindow = (part: 'lag' | 'heardLate') =>
    perWindow
      .map(
        ([window, lags]) =>
          `${window}–${window + 30} s ${fmt(
            percentile(
              lags.map((l) => l[part]),
              95,
            ),
            1,
          )}`,
      )
      .join(', ');
  console.log(`  lag p95 per 30 s: ${p95PerWindow('lag')}`);
  // Where the lag sits: the capture hearing the voice late (its stamp), or what comes after.
  console.log(`  of which heard late (segment end − voice end, p95 per 30 s): ${p95PerWindow('heardLate')}`);
  const seconds = (ms: number | null) => (ms === null ? '–' : fmt(ms / 1000, 1));
  console.log(
    `  audio waiting between the receivers' playout and the capture, per bot at each minute (s): ${result.captureClocks
      .map((readings) => readings.map((r) => seconds(r.playoutBacklogMs)).join(' → ') || '–')
      .join('; ')}`,
  );
  if (result.floor) {
    const { floor } = result;
    console.log(
      `  floor, ${floor.inCall}/${n} bare Chromiums in the call: memory per page avg/max ${fmt(average(floor.memoryMiB), 0)} / ${fmt(Math.max(...floor.memoryMiB), 0)} MiB, CPU per page ${fmt(average(floor.cpuCores))}, machine ${fmt(floor.machineCores)} cores`,
    );
  }
  if (result.behind.length > 0) {
    console.log(`falls behind at N = ${n}: ${result.behind.join('; ')}`);
    if (!values.all) break;
  }
}
process.exit(0);
