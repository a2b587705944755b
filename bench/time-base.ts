/**
 * Do a transcript's absolute times stay on the speakers' real timing through a long meeting?
 * Runs bots (the real bot program, local Chromium) in simulated meetings where three people take
 * turns, and compares each segment's absolute start and end with when the simulator's page heard
 * the voice begin and end (its audio clock, clip silence left out). Prints, per bot, the median
 * offsets in the first and the last fifth of the meeting and the drift fitted over all of it.
 *
 *   npx tsx bench/time-base.ts [--minutes 3] [--platform google_meet|teams|both] [--bots 1] [--every 8]
 *                              [--track-delay 0]   (seconds before the page's remote tracks appear)
 *                              [--meet-audio slots|mixed]
 *                              [--capture audio-context|track-processor]   (BOT_AUDIO_CAPTURE)
 *
 * `--bots` is per platform; every bot has its own meeting and they all run at once (load).
 * Needs Redis on 127.0.0.1:6379, Chromium (headless shell), flite and pocketsphinx on the host.
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { AUDIO_CAPTURE_MODES } from '../shared/contract/bot-config.js';
import { SimulatorClient } from '../simulator/client.js';
import { createSimulator } from '../simulator/server.js';
import { botSegments, startBot } from '../test/e2e/bot/bot-harness.js';
import { TEST_REDIS_URL } from '../test/support/env.js';
import { continuousSpeech } from '../test/support/speech-script.js';
import {
  driftPerHourMs,
  median,
  type UtteranceTiming,
  utteranceTimings,
} from '../test/support/speech-timing.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    platform: { type: 'string', default: 'both' },
    bots: { type: 'string', default: '1' },
    every: { type: 'string', default: '8' },
    'track-delay': { type: 'string', default: '0' },
    /** Meet's audio: its three slots (the default) or one mixed track; Teams is always mixed. */
    'meet-audio': { type: 'string', default: 'slots' },
    /** How the bots' pages hear the meeting (BOT_AUDIO_CAPTURE). */
    capture: { type: 'string', default: 'audio-context' },
  },
});
const minutes = Number(values.minutes);
const botsPerPlatform = Number(values.bots);
const every = Number(values.every);
const trackDelaySeconds = Number(values['track-delay']);
const platforms =
  values.platform === 'both'
    ? (['google_meet', 'teams'] as const)
    : ([values.platform] as ['google_meet' | 'teams']);
const seconds = Math.min(Math.round(minutes * 60), 3590);
const audioCapture = z.enum(AUDIO_CAPTURE_MODES).parse(values.capture);

const simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
const client = new SimulatorClient(simulator.url);
const redis = new Redis(TEST_REDIS_URL);
const prefix = `mbt-time-base-${Date.now()}`;

const runs = await Promise.all(
  platforms.flatMap((platform) =>
    Array.from({ length: botsPerPlatform }, async (_, index) => {
      const meeting = await client.createMeeting({
        platform,
        audio: {
          mode: platform === 'teams' || values['meet-audio'] === 'mixed' ? 'mixed' : 'slots',
          trackDelaySeconds,
        },
        admission: { policy: 'after', delaySeconds: 1 },
        participants: continuousSpeech(seconds, { everySeconds: every }),
        // The simulator schedules up to an hour.
        endAt: Math.min(seconds + 3, 3600),
      });
      const bot = startBot(
        {
          platform,
          meetingUrl: meeting.url,
          automaticLeave: { silenceSeconds: 3600, maxDurationSeconds: 4 * 3600 },
          audioCapture,
          // The bot logs its capture clocks every minute at info level.
          logLevel: process.env.TIME_BASE_DETAIL ? 'info' : 'warn',
        },
        prefix,
        simulator.url,
      );
      return { label: `${platform} #${index + 1}`, meeting, bot };
    }),
  ),
);
console.log(`${runs.length} bot(s), ${minutes} min meetings, a turn every ${every} s`);

const fmt = (value: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(0)}` : 'n/a';
for (const run of runs) {
  const code = await run.bot.exited;
  const played = (await client.getMeeting(run.meeting.id)).utterances;
  const segments = (await botSegments(redis, prefix, run.bot.config.sessionId)).filter(
    (segment) => segment.final,
  );
  const timings = utteranceTimings(played, segments);
  const spokenFrom = timings[0]?.spokenAt ?? 0;
  const inFifth = (fifth: 'first' | 'last') => (timing: UtteranceTiming) => {
    const at = (timing.spokenAt - spokenFrom) / 1000;
    return fifth === 'first' ? at < seconds / 5 : at >= (seconds * 4) / 5 - 5;
  };
  const summary = (fifth: 'first' | 'last') => {
    const chosen = timings.filter(inFifth(fifth));
    return `start ${fmt(median(chosen.map((t) => t.startOffsetMs)))} / end ${fmt(median(chosen.map((t) => t.endOffsetMs)))} ms (${chosen.length})`;
  };
  console.log(
    `${run.label.padEnd(15)} exit ${code}, ${timings.length}/${played.filter((u) => u.status === 'played').length} utterances matched | ` +
      `first fifth: ${summary('first')} | last fifth: ${summary('last')} | drift: start ${fmt(driftPerHourMs(timings, (t) => t.startOffsetMs))}, end ${fmt(driftPerHourMs(timings, (t) => t.endOffsetMs))} ms/hour`,
  );
  if (process.env.TIME_BASE_DETAIL) {
    for (const line of run.bot.output().split('\n')) {
      if (!line.includes('"capture clock"')) continue;
      const clock = JSON.parse(line) as Record<string, number>;
      console.log(
        `  clock: captured ${clock.capturedSeconds?.toFixed(1)} s, missing ${((clock.missingSeconds ?? 0) * 1000).toFixed(0)} ms, ` +
          `jitter buffer ${clock.receiveDelayMs?.toFixed(0)} ms, playout backlog ${clock.playoutBacklogMs?.toFixed(1)} ms`,
      );
    }
    // Every voice and every segment on one time line (seconds from the first voice), so merged or
    // split turns show.
    const at = (iso: string | null) => (iso ? ((Date.parse(iso) - spokenFrom) / 1000).toFixed(2) : '?');
    for (const utterance of played) {
      console.log(
        `  heard   ${at(utterance.speechStartedAt)}..${at(utterance.speechEndedAt)}  ${utterance.text}`,
      );
    }
    for (const segment of segments) {
      console.log(
        `  segment ${at(segment.absoluteStartTime)}..${at(segment.absoluteEndTime)}  ${segment.speaker ?? '-'}: ${segment.text}`,
      );
    }
    for (const timing of timings) {
      console.log(
        `  ${((timing.spokenAt - spokenFrom) / 1000).toFixed(1).padStart(7)} s  ${fmt(timing.startOffsetMs).padStart(6)} ${fmt(timing.endOffsetMs).padStart(6)}  ${timing.text}`,
      );
    }
  }
}

const keys = await redis.keys(`${prefix}:*`);
if (keys.length > 0) await redis.del(...keys);
redis.disconnect();
await simulator.close();
