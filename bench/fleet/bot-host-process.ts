/**
 * The bot host of one worker: the process that plays its container engine, forked by the simulated
 * runtime (simulated-runtime.ts) and told over IPC to start and signal "containers", each a
 * SimulatedBot. Kept out of the worker's own process so that the worker's CPU and memory are the
 * worker's alone, as with a real engine. It writes its counters to FLEET_STATS_FILE every few
 * seconds and when it ends (the driver reads them); it ends with its worker (the IPC channel closing).
 */
import { renameSync, writeFileSync } from 'node:fs';
import type { RedisAudioOut } from '../../bot/audio/audio-out.js';
import { percentile } from '../support/percentile.js';
import {
  BEHAVIOUR_ENV,
  type BotBehaviour,
  DEFAULT_BEHAVIOUR,
  type FromHost,
  type HostStats,
  STATS_FILE_ENV,
  type ToHost,
} from './host-protocol.js';
import { type FleetCounters, SimulatedBot } from './simulated-bot.js';

const STATS_EVERY_MS = 5000;
const APPEND_SAMPLES = 50_000;

const behaviour: BotBehaviour = { ...DEFAULT_BEHAVIOUR, ...JSON.parse(process.env[BEHAVIOUR_ENV] ?? '{}') };
const statsFile = process.env[STATS_FILE_ENV];
const bots = new Map<string, SimulatedBot>();
let started = 0;
const exited: Record<string, number> = {};
const audioTotals = { published: 0, dropped: 0, failed: 0 };
const audioLive = new Set<RedisAudioOut>();
const appendMs: number[] = [];
let appendCount = 0;

const counters: FleetCounters = {
  active: 0,
  events: 0,
  segmentsFinal: 0,
  segmentsPartial: 0,
  participants: 0,
  recordingChunks: 0,
  appendFailures: 0,
  redisErrors: 0,
  lastRedisError: null,
  addAudio: (audio) => audioLive.add(audio),
  retireAudio: (audio) => {
    if (!audioLive.delete(audio)) return;
    const stats = audio.stats();
    audioTotals.published += stats.published;
    audioTotals.dropped += stats.dropped;
    audioTotals.failed += stats.failed;
  },
  recordAppendMs: (ms) => {
    appendMs[appendCount % APPEND_SAMPLES] = ms;
    appendCount += 1;
  },
};

function send(message: FromHost): void {
  if (process.connected) process.send?.(message);
}

function start(message: Extract<ToHost, { type: 'start' }>): void {
  const files = new Map(
    message.files.map((file) => [`${file.directory}/${file.name}`, Buffer.from(file.content, 'base64')]),
  );
  const bot = new SimulatedBot({ env: message.env, files }, behaviour, counters);
  bots.set(message.id, bot);
  started += 1;
  send({ type: 'started', id: message.id });
  void bot.run().then((exitCode) => {
    bots.delete(message.id);
    exited[exitCode] = (exited[exitCode] ?? 0) + 1;
    send({ type: 'exited', id: message.id, exitCode, logTail: bot.logTail() });
  });
}

process.on('message', (message: ToHost) => {
  if (message.type === 'start') start(message);
  else if (message.type === 'signal') {
    const bot = bots.get(message.id);
    if (message.signal === 'SIGKILL') bot?.kill();
    else bot?.terminate();
  }
});

function stats(): HostStats {
  let published = audioTotals.published;
  let dropped = audioTotals.dropped;
  let failed = audioTotals.failed;
  for (const audio of audioLive) {
    const live = audio.stats();
    published += live.published;
    dropped += live.dropped;
    failed += live.failed;
  }
  const samples = appendMs.slice(0, Math.min(appendCount, APPEND_SAMPLES));
  return {
    workerId: process.env.WORKER_ID ?? '',
    pid: process.pid,
    at: Date.now(),
    running: bots.size,
    started,
    exited,
    active: counters.active,
    events: counters.events,
    segmentsFinal: counters.segmentsFinal,
    segmentsPartial: counters.segmentsPartial,
    participants: counters.participants,
    recordingChunks: counters.recordingChunks,
    audioChunks: published,
    audioDropped: dropped,
    audioFailed: failed,
    appendFailures: counters.appendFailures,
    redisErrors: counters.redisErrors,
    lastRedisError: counters.lastRedisError,
    segmentAppendMs: {
      count: appendCount,
      p50: percentile(samples, 50),
      p95: percentile(samples, 95),
      p99: percentile(samples, 99),
      max: samples.length ? Math.max(...samples) : Number.NaN,
    },
  };
}

function writeStats(): void {
  if (!statsFile) return;
  const temporary = `${statsFile}.tmp`;
  writeFileSync(temporary, JSON.stringify(stats()));
  renameSync(temporary, statsFile);
}

let cpuBefore = process.cpuUsage();
const beat = setInterval(() => {
  writeStats();
  const cpu = process.cpuUsage(cpuBefore);
  cpuBefore = process.cpuUsage();
  send({
    type: 'usage',
    rssBytes: process.memoryUsage.rss(),
    cpuMicros: cpu.user + cpu.system,
    bots: bots.size,
  });
}, STATS_EVERY_MS);

// The worker is gone (it stopped, or crashed): its "engine" goes with it, bots and all.
process.on('disconnect', () => {
  clearInterval(beat);
  for (const bot of bots.values()) bot.kill();
  writeStats();
  setTimeout(() => process.exit(0), 200).unref();
});

send({ type: 'ready', pid: process.pid });
