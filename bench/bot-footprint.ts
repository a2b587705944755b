/**
 * Where one bot's memory and CPU go, process by process, beside the floor: the same Chromium with
 * the same flags alone on the same kind of meeting page (bench/chromium-floor.mjs), in the same run.
 * One bot joins a simulated meeting of three people taking turns without pause, through the full
 * stack (API → worker → bot container); after `--warmup` seconds in the call its container is
 * sampled for `--seconds`; then the floor joins a second, identical meeting and is sampled the same way.
 *
 *   npx tsx bench/bot-footprint.ts [--platform google_meet|teams|zoom] [--seconds 60] [--warmup 20]
 *     [--load none|realistic]   (realistic: the meeting, the bot's and the floor's alike, has three
 *       silent participants more and simulator/schema.ts REALISTIC_LOAD: every camera on, a screen
 *       share half the time, the real client's page weight; BOT_SKIP_VIDEO=on|off sets the bot's
 *       video measures)
 *     [--chromium headless_shell|full] [--no-floor]   (BOT_IMAGE=… measures another bot image)
 *     [--recording]   (measures the bot twice in the run, without and then with recording_enabled)
 *     [--sandbox on|off|both] [--rounds 1]   (BOT_CHROMIUM_SANDBOX of the bots; `both` measures a bot
 *       without and then with Chromium's sandbox, `--rounds` times, alternating, and prints each
 *       figure's range per setting: join time, CPU, PSS and docker stats)
 *
 * Prints PSS (mean of the samples) and CPU per kind of process, the sums, memory as `docker stats`
 * shows it (cgroup usage less inactive file), and the bot's join time: from POST /bots to the
 * meeting's lobby (awaiting_admission: container, Node, Chromium and the page) and to `active` (the
 * simulator admits it 1 s after it asks). Needs what the e2e tests need, run as
 * root (it reads the containers' processes in /proc), on an otherwise idle machine.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { sleep } from '../shared/infra/async.js';
import { createLogger } from '../shared/infra/logger.js';
import type { CreateMeetingInput } from '../simulator/client.js';
import { continuousSpeech } from '../test/support/speech-script.js';
import { startStack } from '../test/support/stack.js';
import { DockerRuntime } from '../worker/runtime/docker-runtime.js';
import { type ContainerFootprint, measureContainer } from './support/container-processes.js';
import { startFloor } from './support/floor-container.js';
import { loadArg, platformArg } from './support/scenario-args.js';

const { values } = parseArgs({
  allowNegative: true,
  options: {
    platform: { type: 'string', default: 'google_meet' },
    load: { type: 'string', default: 'none' },
    seconds: { type: 'string', default: '60' },
    warmup: { type: 'string', default: '20' },
    floor: { type: 'boolean', default: true },
    /** BOT_CHROMIUM for the bot: headless_shell (the default) or full. */
    chromium: { type: 'string', default: 'headless_shell' },
    recording: { type: 'boolean', default: false },
    sandbox: { type: 'string', default: 'on' },
    rounds: { type: 'string', default: '1' },
  },
});
if (!['on', 'off', 'both'].includes(values.sandbox)) throw new Error('--sandbox is on, off or both');
type SandboxSetting = 'on' | 'off';
const SANDBOX_SETTINGS: SandboxSetting[] =
  values.sandbox === 'both' ? ['off', 'on'] : [values.sandbox as SandboxSetting];
const ROUNDS = Number(values.rounds);
const PLATFORM = platformArg(values.platform);
const { load: LOAD, silent: SILENT } = loadArg(values.load);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const BOT_IMAGE = process.env.BOT_IMAGE ?? 'meetbot/bot:latest';
const MEETING_SECONDS = WARMUP + SECONDS + 40;

const stack = await startStack({
  workerEnv: {
    BOT_SLOTS: '1',
    LOG_LEVEL: 'warn',
    WORKER_METRICS_PORT: '0',
    BOT_IMAGE,
    BOT_CHROMIUM: values.chromium,
    ...(process.env.BOT_SKIP_VIDEO && { BOT_SKIP_VIDEO: process.env.BOT_SKIP_VIDEO }),
  },
});
const runtime = new DockerRuntime(stack.docker, createLogger('footprint', 'silent'));
const meeting: CreateMeetingInput = {
  platform: PLATFORM,
  admission: { policy: 'after', delaySeconds: 1 },
  participants: [...continuousSpeech(MEETING_SECONDS), ...SILENT],
  endAt: MEETING_SECONDS,
  ...(LOAD && { load: LOAD }),
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

interface JoinTimes {
  /** From POST /bots to awaiting_admission (the bot asked to join) and to active, in seconds. */
  lobbySeconds: number;
  activeSeconds: number;
}

interface BotResult {
  footprint: ContainerFootprint;
  statsMiB: number;
  join: JoinTimes;
}

async function joinTimes(meetingId: number): Promise<JoinTimes> {
  const transitions = await stack.transitions(meetingId);
  const at = (status: string) => {
    const found = transitions.find((transition) => transition.to === status);
    if (!found) throw new Error(`meeting ${meetingId} has no ${status} transition`);
    return found.createdAt.getTime();
  };
  return {
    lobbySeconds: (at('awaiting_admission') - at('requested')) / 1000,
    activeSeconds: (at('active') - at('requested')) / 1000,
  };
}

async function measureBot(recording = false): Promise<BotResult> {
  const { meetingId, nativeId } = await stack.createMeetingAndBot(meeting, { recording_enabled: recording });
  const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
  if (seen.at(-1) !== 'active') throw new Error(`the bot was not admitted: ${seen.join(' → ')}`);
  const join = await joinTimes(meetingId);
  const [container] = await stack.containersOf(meetingId);
  await sleep(WARMUP * 1000);
  const result = await measure(container!.Id);
  await stack.api.request('DELETE', `/bots/${PLATFORM}/${nativeId}`, { key: stack.user.key });
  await stack.waitForStatus(meetingId, ['completed', 'failed'], 120_000);
  return { ...result, join };
}

async function measureFloor(floorSandbox: boolean) {
  const created = await stack.simulator.createMeeting(meeting);
  const container = await startFloor(stack.docker, {
    image: BOT_IMAGE,
    meetingUrl: created.url,
    platform: PLATFORM,
    sandbox: floorSandbox,
  });
  try {
    await sleep(WARMUP * 1000);
    return await measure(container.id);
  } finally {
    await container.remove({ force: true }).catch(() => {});
  }
}

function print(label: string, result: { footprint: ContainerFootprint; statsMiB: number; join?: JoinTimes }) {
  const join = result.join
    ? `, joined: lobby ${result.join.lobbySeconds.toFixed(1)} s, active ${result.join.activeSeconds.toFixed(1)} s after POST /bots`
    : '';
  console.log(
    `\n${label}: PSS ${result.footprint.pssMiB.toFixed(0)} MiB, CPU ${result.footprint.cores.toFixed(2)} core, docker stats ${result.statsMiB.toFixed(0)} MiB${join}`,
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

/** Min–max of one figure over rounds, e.g. "0.41–0.47". */
function range(numbers: number[], digits: number): string {
  const low = Math.min(...numbers).toFixed(digits);
  const high = Math.max(...numbers).toFixed(digits);
  return low === high ? low : `${low}–${high}`;
}

function printSandboxComparison(results: Map<SandboxSetting, BotResult[]>) {
  console.log(`\nChromium's sandbox, ${ROUNDS} round(s) alternating off → on (min–max over rounds):`);
  console.log(
    '| BOT_CHROMIUM_SANDBOX | lobby after POST (s) | active after POST (s) | CPU (cores) | PSS (MiB) | docker stats (MiB) | Chromium processes |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [setting, rounds] of results) {
    const chromiumProcesses = rounds.map((round) =>
      round.footprint.kinds
        .filter((kind) => kind.kind.startsWith('chromium'))
        .reduce((sum, kind) => sum + kind.processes, 0),
    );
    console.log(
      `| ${setting} | ${range(
        rounds.map((r) => r.join.lobbySeconds),
        1,
      )} | ${range(
        rounds.map((r) => r.join.activeSeconds),
        1,
      )} | ${range(
        rounds.map((r) => r.footprint.cores),
        2,
      )} | ${range(
        rounds.map((r) => r.footprint.pssMiB),
        0,
      )} | ${range(
        rounds.map((r) => r.statsMiB),
        0,
      )} | ${range(chromiumProcesses, 0)} |`,
    );
  }
}

try {
  const cores = readFileSync('/proc/cpuinfo', 'utf8').match(/^processor/gm)?.length ?? 1;
  console.log(
    `bot footprint: ${PLATFORM}, Chromium ${values.chromium}, sandbox ${values.sandbox}${ROUNDS > 1 ? ` × ${ROUNDS} rounds` : ''}, 3 speakers talking without pause${LOAD ? ' and 3 silent, realistic load' : ''}, BOT_SKIP_VIDEO ${process.env.BOT_SKIP_VIDEO ?? 'as configured'}, ${WARMUP} s warm-up, ${SECONDS} s sampled, ${cores} cores`,
  );
  const results = new Map<SandboxSetting, BotResult[]>(SANDBOX_SETTINGS.map((setting) => [setting, []]));
  let bot: BotResult | undefined;
  // One worker per setting and round: BOT_CHROMIUM_SANDBOX is a worker's setting.
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const setting of SANDBOX_SETTINGS) {
      const worker = stack.startWorker(`footprint-${setting}-${round}`, { BOT_CHROMIUM_SANDBOX: setting });
      bot = await measureBot();
      await stack.stopWorker(worker);
      results.get(setting)!.push(bot);
      print(`bot, sandbox ${setting}, round ${round}`, bot);
    }
  }
  if (SANDBOX_SETTINGS.length > 1 || ROUNDS > 1) printSandboxComparison(results);
  if (values.recording && bot) {
    // With the last setting measured.
    stack.startWorker('footprint-recording', { BOT_CHROMIUM_SANDBOX: SANDBOX_SETTINGS.at(-1)! });
    const recording = await measureBot(true);
    print('bot recording the meeting', recording);
    console.log(
      `\nrecording adds: PSS ${(recording.footprint.pssMiB - bot.footprint.pssMiB).toFixed(0)} MiB, CPU ${(recording.footprint.cores - bot.footprint.cores).toFixed(3)} core, docker stats ${(recording.statsMiB - bot.statsMiB).toFixed(0)} MiB (opusenc alone: ${JSON.stringify(recording.footprint.kinds.find((kind) => kind.kind === 'opusenc') ?? null)})`,
    );
  }
  if (values.floor) {
    const floorSandbox = SANDBOX_SETTINGS.at(-1) === 'on';
    print(
      `floor (bare Chromium, same flags, same kind of page, sandbox ${floorSandbox ? 'on' : 'off'})`,
      await measureFloor(floorSandbox),
    );
  }
} finally {
  await stack.close();
}
process.exit(0);
