/**
 * What realistic meeting load costs a bot: one real bot container (API → worker → bot) joins a
 * simulated meeting of 6 participants (3 taking turns speaking without pause, 3 silent) twice, once
 * without load (audio only, the simulator's default) and once with the benchmarks' realistic load
 * (simulator/schema.ts REALISTIC_LOAD: every camera on as WebRTC video, a 1080p screen share half
 * the time, the real client's page weight). After `--warmup` seconds in the call the container is
 * sampled for `--seconds`. The realistic load is measured twice: with the bot's video measures
 * (BOT_SKIP_VIDEO=on, the default: others' cameras turned off in the meeting's settings, the page's
 * video not rendered; bot/video/) and without them (BOT_SKIP_VIDEO=off).
 *
 *   npx tsx bench/video-load.ts [--platform google_meet|teams|zoom] [--seconds 60] [--warmup 20]
 *     [--no-audio-only]   (skips the scenario without load)
 *     (BOT_IMAGE=… measures another bot image)
 *
 * Prints per scenario: CPU (cores, from the container's processes in /proc between the first and
 * last sample), memory as `docker stats` shows it (cgroup usage less inactive file, mean of 2 s
 * samples) and PSS, with the Chromium renderer's share, and how the page got its media
 * (`rtc-loopback`: real WebRTC tracks), and the renderer's CPU per thread name, which separates the
 * page's own video encoders (its senders, which a real meeting has elsewhere) from the decoders.
 * Needs what the e2e tests need, run as root (it reads the
 * container's processes in /proc), on an otherwise idle machine.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLogger } from '../shared/infra/logger.js';
import type { CreateMeetingInput } from '../simulator/client.js';
import { type Load, REALISTIC_LOAD } from '../simulator/schema.js';
import { continuousSpeech } from '../test/support/speech-script.js';
import { startStack } from '../test/support/stack.js';
import { DockerRuntime } from '../worker/runtime/docker-runtime.js';
import { type ContainerFootprint, measureContainer, sampleContainer } from './support/container-processes.js';
import { loadArg, platformArg } from './support/scenario-args.js';
import { coresByThreadName, threadTicks } from './support/thread-cpu.js';

const { values } = parseArgs({
  options: {
    platform: { type: 'string', default: 'google_meet' },
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '20' },
    'audio-only': { type: 'boolean', default: true },
  },
  allowNegative: true,
});
const PLATFORM = platformArg(values.platform);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const BOT_IMAGE = process.env.BOT_IMAGE ?? 'meetbot/bot:latest';
const MEETING_SECONDS = WARMUP + SECONDS + 40;
const { silent: SILENT } = loadArg('realistic');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stack = await startStack({
  workerEnv: { BOT_SLOTS: '1', LOG_LEVEL: 'warn', WORKER_METRICS_PORT: '0', BOT_IMAGE },
});
const runtime = new DockerRuntime(stack.docker, createLogger('video-load', 'silent'));

function meetingWith(load: Load | undefined): CreateMeetingInput {
  return {
    platform: PLATFORM,
    admission: { policy: 'after', delaySeconds: 1 },
    participants: [...continuousSpeech(MEETING_SECONDS), ...SILENT],
    endAt: MEETING_SECONDS,
    ...(load ? { load } : {}),
  };
}

interface Result {
  footprint: ContainerFootprint;
  /** The renderers' CPU per thread name, busiest first. */
  threads: { name: string; threads: number; cores: number }[];
  statsMiB: number;
  transport: string | null;
  /** The video the bot's page decoded over the whole meeting (camera frames, screen frames). */
  decoded: { cameras: number; screen: number };
}

async function measureBot(load: Load | undefined): Promise<Result> {
  const { meetingId, nativeId } = await stack.createMeetingAndBot(meetingWith(load));
  const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
  if (seen.at(-1) !== 'active') throw new Error(`the bot was not admitted: ${seen.join(' → ')}`);
  const [container] = await stack.containersOf(meetingId);
  await sleep(WARMUP * 1000);
  const stats: number[] = [];
  const sampler = setInterval(() => {
    runtime.usage(container!.Id).then(
      (usage) => usage && stats.push(usage.memoryBytes / 1024 / 1024),
      () => {},
    );
  }, 2000);
  const renderers = (await sampleContainer(stack.docker, container!.Id))
    .filter((sample) => sample.kind === 'chromium renderer')
    .map((sample) => sample.pid);
  const threadsBefore = threadTicks(renderers);
  const started = Date.now();
  let footprint: ContainerFootprint;
  try {
    footprint = await measureContainer(stack.docker, container!.Id, SECONDS);
  } finally {
    clearInterval(sampler);
  }
  const threads = coresByThreadName(threadsBefore, threadTicks(renderers), (Date.now() - started) / 1000);
  const simulated = await stack.simulator.getMeeting(nativeId);
  await stack.api.request('DELETE', `/bots/${PLATFORM}/${nativeId}`, { key: stack.user.key });
  await stack.waitForStatus(meetingId, ['completed', 'failed'], 120_000);
  return {
    footprint,
    threads,
    statsMiB: stats.reduce((sum, value) => sum + value, 0) / Math.max(stats.length, 1),
    transport: simulated.bot.audioTransport,
    decoded: {
      cameras: simulated.bot.receivedVideo.cameraFramesDecoded,
      screen: simulated.bot.receivedVideo.screenFramesDecoded,
    },
  };
}

function renderer(result: Result) {
  return result.footprint.kinds.find((kind) => kind.kind === 'chromium renderer');
}

try {
  const cores = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 1;
  console.log(
    `video load: ${PLATFORM}, 6 participants (3 speaking in turns, 3 silent), ${WARMUP} s warm-up, ${SECONDS} s sampled, ${cores} cores, ${BOT_IMAGE}`,
  );
  const scenarios: [string, Load | undefined, 'on' | 'off'][] = [
    ...(values['audio-only'] ? [['no load (audio only)', undefined, 'on'] as [string, undefined, 'on']] : []),
    [
      'realistic load (6 cameras, screen share half the time, page weight), BOT_SKIP_VIDEO=off',
      REALISTIC_LOAD,
      'off',
    ],
    [
      'realistic load (6 cameras, screen share half the time, page weight), BOT_SKIP_VIDEO=on',
      REALISTIC_LOAD,
      'on',
    ],
  ];
  const rows: string[] = [];
  for (const [label, load, skipVideo] of scenarios) {
    const worker = stack.startWorker(`video-load-${rows.length}`, { BOT_SKIP_VIDEO: skipVideo });
    const result = await measureBot(load);
    await stack.stopWorker(worker);
    const page = renderer(result);
    rows.push(
      `| ${label} | ${result.footprint.cores.toFixed(2)} | ${result.statsMiB.toFixed(0)} | ${result.footprint.pssMiB.toFixed(0)} | ${page ? page.cores.toFixed(2) : '–'} | ${page ? page.pssMiB.toFixed(0) : '–'} | ${result.transport ?? '–'} | ${result.decoded.cameras} / ${result.decoded.screen} |`,
    );
    console.log(`\n${label}:`);
    console.log('| process | count | PSS (MiB) | CPU (cores) |');
    console.log('|---|---|---|---|');
    for (const kind of result.footprint.kinds) {
      console.log(
        `| ${kind.kind} | ${kind.processes} | ${kind.pssMiB.toFixed(0)} | ${kind.cores.toFixed(3)} |`,
      );
    }
    console.log('\nthe renderer by thread (busiest 12):');
    console.log('| thread | count | CPU (cores) |');
    console.log('|---|---|---|');
    for (const thread of result.threads.slice(0, 12)) {
      console.log(`| ${thread.name} | ${thread.threads} | ${thread.cores.toFixed(3)} |`);
    }
  }
  console.log(
    '\n| scenario | CPU (cores) | docker stats (MiB) | PSS (MiB) | renderer CPU (cores) | renderer PSS (MiB) | media | frames decoded (cameras / screen) |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
} finally {
  await stack.close();
}
process.exit(0);
