/**
 * Where one bot's memory and CPU go, process by process, beside the floor: the same Chromium with
 * the same flags alone on the same kind of meeting page (bench/chromium-floor.mjs), in the same run.
 * One bot joins a simulated meeting of three people taking turns without pause, through the full
 * stack (API → worker → bot container); after `--warmup` seconds in the call its container is
 * sampled for `--seconds`; then the floor joins a second, identical meeting and is sampled the same way.
 *
 *   npx tsx bench/bot-footprint.ts [--platform google_meet|teams] [--seconds 60] [--warmup 20]
 *     [--chromium headless_shell|full] [--no-floor]   (BOT_IMAGE=… measures another bot image)
 *     [--recording]   (measures the bot twice in the run, without and then with recording_enabled)
 *
 * Prints PSS (mean of the samples) and CPU per kind of process, the sums, and memory as
 * `docker stats` shows it (cgroup usage less inactive file). Needs what the e2e tests need, run as
 * root (it reads the containers' processes in /proc), on an otherwise idle machine.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createLogger } from '../shared/infra/logger.js';
import type { CreateMeetingInput } from '../simulator/client.js';
import { continuousSpeech } from '../test/support/speech-script.js';
import { startStack } from '../test/support/stack.js';
import { DockerRuntime } from '../worker/runtime/docker-runtime.js';
import { type ContainerFootprint, measureContainer } from './support/container-processes.js';

const { values } = parseArgs({
  allowNegative: true,
  options: {
    platform: { type: 'string', default: 'google_meet' },
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '20' },
    floor: { type: 'boolean', default: true },
    /** BOT_CHROMIUM for the bot: headless_shell (the default) or full. */
    chromium: { type: 'string', default: 'headless_shell' },
    recording: { type: 'boolean', default: false },
  },
});
const PLATFORM = values.platform === 'teams' ? 'teams' : 'google_meet';
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const BOT_IMAGE = process.env.BOT_IMAGE ?? 'meetbot/bot:latest';
const MEETING_SECONDS = WARMUP + SECONDS + 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stack = await startStack({
  workerEnv: {
    BOT_SLOTS: '1',
    LOG_LEVEL: 'warn',
    WORKER_METRICS_PORT: '0',
    BOT_IMAGE,
    BOT_CHROMIUM: values.chromium,
  },
});
const runtime = new DockerRuntime(stack.docker, createLogger('footprint', 'silent'));
const meeting: CreateMeetingInput = {
  platform: PLATFORM,
  admission: { policy: 'after', delaySeconds: 1 },
  participants: continuousSpeech(MEETING_SECONDS),
  endAt: MEETING_SECONDS,
};

/** Samples the container's processes and, alongside, its memory as `docker stats` shows it. */
async function measure(containerId: string): Promise<{ footprint: ContainerFootprint; statsMiB: number }> {
  const stats: number[] = [];
  const sampler = setInterval(() => {
    runtime.usage(containerId).then(
      (usage) => usage && stats.push(usage.memoryBytes / 1024 / 1024),
      () => {},
    );
  }, 2000);
  try {
    const footprint = await measureContainer(stack.docker, containerId, SECONDS);
    return { footprint, statsMiB: stats.reduce((sum, value) => sum + value, 0) / Math.max(stats.length, 1) };
  } finally {
    clearInterval(sampler);
  }
}

async function measureBot(recording = false) {
  const { meetingId, nativeId } = await stack.createMeetingAndBot(meeting, { recording_enabled: recording });
  const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
  if (seen.at(-1) !== 'active') throw new Error(`the bot was not admitted: ${seen.join(' → ')}`);
  const [container] = await stack.containersOf(meetingId);
  await sleep(WARMUP * 1000);
  const result = await measure(container!.Id);
  await stack.api.request('DELETE', `/bots/${PLATFORM}/${nativeId}`, { key: stack.user.key });
  await stack.waitForStatus(meetingId, ['completed', 'failed'], 120_000);
  return result;
}

async function measureFloor() {
  const created = await stack.simulator.createMeeting(meeting);
  const floorScript = new URL('./chromium-floor.mjs', import.meta.url).pathname;
  const container = await stack.docker.createContainer({
    Image: BOT_IMAGE,
    Entrypoint: ['node', 'bench/chromium-floor.mjs'],
    Cmd: [created.url, PLATFORM],
    Labels: { 'meetbot.bench': 'chromium-floor' },
    HostConfig: {
      NetworkMode: 'host',
      Binds: [`${floorScript}:/app/bench/chromium-floor.mjs:ro`],
      ShmSize: 256 * 1024 * 1024,
      Init: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
    },
  });
  try {
    await container.start();
    const deadline = Date.now() + 150_000;
    for (;;) {
      const logs = (await container.logs({ stdout: true, stderr: true })).toString();
      if (logs.includes('in call')) break;
      const state = await container.inspect();
      if (!state.State.Running || Date.now() > deadline)
        throw new Error(`the floor browser never joined:\n${logs}`);
      await sleep(1000);
    }
    await sleep(WARMUP * 1000);
    return await measure(container.id);
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}

function print(label: string, result: { footprint: ContainerFootprint; statsMiB: number }) {
  console.log(
    `\n${label}: PSS ${result.footprint.pssMiB.toFixed(0)} MiB, CPU ${result.footprint.cores.toFixed(2)} core, docker stats ${result.statsMiB.toFixed(0)} MiB`,
  );
  const chromium = result.footprint.kinds.filter((kind) => kind.kind.startsWith('chromium'));
  const sum = (pick: (kind: (typeof chromium)[number]) => number) =>
    chromium.reduce((total, kind) => total + pick(kind), 0);
  console.log(
    `Chromium alone: ${sum((kind) => kind.processes)} processes, PSS ${sum((kind) => kind.pssMiB).toFixed(0)} MiB, CPU ${sum((kind) => kind.cores).toFixed(2)} core`,
  );
  console.log('| process | count | PSS (MiB) | CPU (cores) |');
  console.log('|---|---|---|---|');
  for (const kind of result.footprint.kinds) {
    console.log(
      `| ${kind.kind} | ${kind.processes} | ${kind.pssMiB.toFixed(0)} | ${kind.cores.toFixed(3)} |`,
    );
  }
}

try {
  const cores = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 1;
  console.log(
    `bot footprint: ${PLATFORM}, Chromium ${values.chromium}, 3 speakers talking without pause, ${WARMUP} s warm-up, ${SECONDS} s sampled, ${cores} cores`,
  );
  stack.startWorker('footprint-worker');
  const bot = await measureBot();
  print('bot', bot);
  if (values.recording) {
    const recording = await measureBot(true);
    print('bot recording the meeting', recording);
    console.log(
      `\nrecording adds: PSS ${(recording.footprint.pssMiB - bot.footprint.pssMiB).toFixed(0)} MiB, CPU ${(recording.footprint.cores - bot.footprint.cores).toFixed(3)} core, docker stats ${(recording.statsMiB - bot.statsMiB).toFixed(0)} MiB (opusenc alone: ${JSON.stringify(recording.footprint.kinds.find((kind) => kind.kind === 'opusenc') ?? null)})`,
    );
  }
  if (values.floor) print('floor (bare Chromium, same flags, same kind of page)', await measureFloor());
} finally {
  await stack.close();
}
process.exit(0);
