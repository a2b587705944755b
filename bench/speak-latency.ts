/**
 * A bot speaking through the full stack (API → command stream → bot container → simulated meeting):
 * text → first audible sample in the meeting (p50/p95 over `--trials` sentences, each asked when the
 * bot is silent and muted), the words the meeting's recognizer heard (WER), and the memory and CPU
 * of the bot's container while it speaks, beside the same container quiet before and after, in the
 * same run.
 *
 *   npx tsx bench/speak-latency.ts [--platform google_meet|teams] [--trials 15] [--seconds 30] [--warmup 15]
 *     (BOT_IMAGE=… measures another bot image)
 *
 * "First audible" is the wall time of the first sample above −40 dBFS that the meeting page recorded
 * from the bot's microphone track (simulator/hearing.ts); "asked" is just before POST …/speak.
 * The simulator's recording of the microphone runs in the bot's page, as a real page's Opus encoder
 * would, so it is counted in the bot's CPU. Needs what the e2e tests need, run as root (it reads the
 * container's processes in /proc), on an otherwise idle machine.
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../shared/infra/logger.js';
import { startStack } from '../test/support/stack.js';
import { wordErrorRate } from '../test/support/wer.js';
import { DockerRuntime } from '../worker/runtime/docker-runtime.js';
import { type ContainerFootprint, measureContainer } from './support/container-processes.js';

const { values } = parseArgs({
  options: {
    platform: { type: 'string', default: 'google_meet' },
    trials: { type: 'string', default: '15' },
    seconds: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '15' },
  },
});
const PLATFORM = values.platform === 'teams' ? 'teams' : 'google_meet';
const TRIALS = Number(values.trials);
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const BOT_IMAGE = process.env.BOT_IMAGE ?? 'meetbot/bot:latest';

const SENTENCES = [
  'Good morning everyone, the quarterly report is ready for review.',
  'The design work is finished and testing starts on Monday.',
  'Please send your questions to the team before Friday.',
  'We will meet again next week at the same time.',
  'Thank you all for joining the call today.',
  'The customer asked about the new release date.',
  'I will write down the action items and share them later.',
  'Let us review the project schedule for this week.',
];
/** About two minutes of speech, longer than any speaking window. */
const LONG_TEXT = Array.from({ length: 4 }, () => SENTENCES.join(' ')).join(' ');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
};

const stack = await startStack({
  workerEnv: { BOT_SLOTS: '1', LOG_LEVEL: 'warn', WORKER_METRICS_PORT: '0', BOT_IMAGE },
  apiEnv: { BOT_ACTIONS_PER_KEY_PER_MINUTE: '0', SPEAK_QUEUE_MAX: '100' },
});
const runtime = new DockerRuntime(stack.docker, createLogger('speak-bench', 'silent'));
const { key } = stack.user;

async function measure(containerId: string): Promise<{ footprint: ContainerFootprint; statsMiB: number }> {
  const stats: number[] = [];
  const sampler = setInterval(() => {
    runtime.usage(containerId).then(
      (usage) => usage && stats.push(usage.memoryBytes / 1024 / 1024),
      () => {},
    );
  }, 2000);
  try {
    const footprint = await measureContainer(stack.docker, containerId, SECONDS, 2000);
    return { footprint, statsMiB: stats.reduce((sum, value) => sum + value, 0) / Math.max(stats.length, 1) };
  } finally {
    clearInterval(sampler);
  }
}

try {
  stack.startWorker('speak-bench');
  const meetingSeconds = WARMUP + 3 * SECONDS + TRIALS * 12 + 120;
  const { meetingId, nativeId } = await stack.createMeetingAndBot({
    platform: PLATFORM,
    admission: { policy: 'open' },
    participants: [{ name: 'Dana', voice: 'slt', utterances: [{ at: 1, text: 'welcome to the meeting' }] }],
    endAt: meetingSeconds,
  });
  const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
  if (seen.at(-1) !== 'active') throw new Error(`the bot was not admitted: ${seen.join(' → ')}`);
  const [container] = await stack.containersOf(meetingId);
  const speakPath = `/bots/${PLATFORM}/${nativeId}/speak`;
  await sleep(WARMUP * 1000);

  console.log(`quiet, before speaking (${SECONDS} s)…`);
  const before = await measure(container!.Id);

  const latencies: number[] = [];
  const wers: number[] = [];
  for (let trial = 0; trial < TRIALS; trial++) {
    const text = SENTENCES[trial % SENTENCES.length]!;
    const askedAt = Date.now();
    const response = await stack.api.request('POST', speakPath, { key, json: { text } });
    if (response.status !== 202) throw new Error(`speak answered ${response.status}: ${response.text}`);
    const heard = await stack.simulator.waitFor(
      nativeId,
      (m) => m.bot.heard[trial]?.status === 'recognized' && m.bot.micOn === false,
      `sentence ${trial + 1} heard`,
      { timeoutMs: 60_000 },
    );
    const span = heard.bot.heard[trial]!;
    const latency = Date.parse(span.firstAudibleAt!) - askedAt;
    const wer = wordErrorRate(text, span.text ?? '').rate;
    latencies.push(latency);
    wers.push(wer);
    console.log(
      `  ${trial + 1}: first audible after ${latency} ms, WER ${(wer * 100).toFixed(0)} % ("${span.text}")`,
    );
    await sleep(1000);
  }

  console.log(`speaking (${SECONDS} s)…`);
  const index = TRIALS;
  await stack.api.request('POST', speakPath, { key, json: { text: LONG_TEXT.slice(0, 2000) } });
  await stack.simulator.waitFor(nativeId, (m) => m.bot.heard[index]?.firstAudibleAt != null, 'long speech', {
    timeoutMs: 30_000,
  });
  const speaking = await measure(container!.Id);
  await stack.api.request('DELETE', speakPath, { key });
  await stack.simulator.waitFor(nativeId, (m) => m.bot.micOn === false, 'muted after the stop', {
    timeoutMs: 30_000,
  });
  await sleep(5000);
  console.log(`quiet, after speaking (${SECONDS} s)…`);
  const after = await measure(container!.Id);

  await stack.api.request('DELETE', `/bots/${PLATFORM}/${nativeId}`, { key });
  await stack.waitForStatus(meetingId, ['completed', 'failed'], 120_000);

  const ms = (value: number) => `${Math.round(value)} ms`;
  console.log(`\n${PLATFORM}, ${TRIALS} sentences, image ${BOT_IMAGE}`);
  console.log(
    `text → first audible sample: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, min ${ms(Math.min(...latencies))}, max ${ms(Math.max(...latencies))}`,
  );
  console.log(
    `WER of what the meeting heard: mean ${((wers.reduce((a, b) => a + b, 0) / wers.length) * 100).toFixed(1)} %`,
  );
  for (const [label, result] of [
    ['quiet before', before],
    ['speaking', speaking],
    ['quiet after', after],
  ] as const) {
    const top = result.footprint.kinds
      .slice(0, 4)
      .map((kind) => `${kind.kind} ${kind.pssMiB.toFixed(0)} MiB/${kind.cores.toFixed(2)}`)
      .join(', ');
    console.log(
      `${label.padEnd(13)} PSS ${result.footprint.pssMiB.toFixed(0)} MiB, docker stats ${result.statsMiB.toFixed(0)} MiB, CPU ${result.footprint.cores.toFixed(2)} core  (${top})`,
    );
  }
  console.log(
    `speaking adds ${(speaking.footprint.cores - before.footprint.cores).toFixed(2)} core and ${(speaking.footprint.pssMiB - before.footprint.pssMiB).toFixed(0)} MiB PSS (${(speaking.statsMiB - before.statsMiB).toFixed(0)} MiB docker stats) over quiet before`,
  );
} finally {
  await stack.close();
}
