import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatorClient } from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import { continuousSpeech } from '../../support/speech-script.js';
import {
  median,
  segmentsSpanningTurns,
  type UtteranceTiming,
  utteranceTimings,
} from '../../support/speech-timing.js';
import { botSegments, startBot } from './bot-harness.js';

/**
 * Absolute segment times against when the simulator's page heard each voice begin and end, in the
 * first and the last minute of a ten-minute meeting, on Meet and Teams at once (two bots share the
 * machine, so the audio clocks run under load), then on Zoom. Counting samples from one start
 * instant drifted by 0.3–1 s an hour here and more under load; the capture timeline must stay within 100 ms, and must
 * not move between the start and the end of the meeting. The two windows' middles are 9 minutes
 * apart, so the 100 ms bound on that move catches a steady drift of 0.7 s an hour or more; slower
 * drifts are for bench/time-base.ts over an hour. People talk back to back in the windows (a turn
 * every 5 s, pauses of 1.2–2.3 s), which Teams delivers on its one mixed track: each turn must
 * still come out as its own segment.
 */
/**
 * Ten minutes unless TEST_TIME_BASE_MINUTES says otherwise (at least 3): a developer may shorten it
 * while working on something else; CI and `npm test` run the ten minutes the drift bound is set for.
 */
const MEETING_SECONDS = meetingMinutes() * 60;

function meetingMinutes(): number {
  const asked = process.env.TEST_TIME_BASE_MINUTES;
  if (asked === undefined || asked === '') return 10;
  const minutes = Number(asked);
  if (!Number.isInteger(minutes) || minutes < 3) {
    throw new Error(`TEST_TIME_BASE_MINUTES must be a whole number of minutes, at least 3 (got ${asked})`);
  }
  return minutes;
}
const WINDOW_SECONDS = 60;
const TOLERANCE_MS = 100;
/**
 * Segment ends sit later than starts whatever the time base: on the clips alone (no browser) the
 * recognizer puts the last word's end 30–150 ms past where the voice fades under −40 dBFS (the
 * simulator's measure), by voice, and its first word's start 30–70 ms early; through the page the
 * WebRTC path adds some 60–100 ms to both. Ends get this much more room, and half of it for their drift over the meeting.
 */
const RECOGNIZER_END_MS = 150;

const prefix = uniquePrefix('bot-time-base');
const redis = createTestRedis();
let simulator: Simulator;

beforeAll(async () => {
  simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await simulator?.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

type MeetingAudio = { mode: 'slots' | 'mixed'; trackDelaySeconds: number };
type PlatformRun = { platform: 'google_meet' | 'teams' | 'zoom'; audio: MeetingAudio };

/** Meet's pooled slots and Teams' one mixed track (appearing after the bot is in), at once. */
const MEET_AND_TEAMS: PlatformRun[] = [
  { platform: 'google_meet', audio: { mode: 'slots', trackDelaySeconds: 0 } },
  { platform: 'teams', audio: { mode: 'mixed', trackDelaySeconds: 0.5 } },
];
/** Zoom's web client: one mixed track, heard once the page has joined the audio. */
const ZOOM: PlatformRun[] = [{ platform: 'zoom', audio: { mode: 'mixed', trackDelaySeconds: 0.5 } }];

/**
 * One meeting per platform at once, each with a bot on the host, for MEETING_SECONDS; then the
 * checks, every failed one named in the one failure.
 */
async function expectTimesHold(platforms: PlatformRun[]): Promise<void> {
  const client = new SimulatorClient(simulator.url);
  const runs = await Promise.all(
    platforms.map(async ({ platform, audio }) => {
      const meeting = await client.createMeeting({
        platform,
        audio,
        admission: { policy: 'after', delaySeconds: 1 },
        participants: continuousSpeech(MEETING_SECONDS, {
          everySeconds: 5,
          within: [
            [0, WINDOW_SECONDS],
            [MEETING_SECONDS - WINDOW_SECONDS, MEETING_SECONDS],
          ],
        }),
        endAt: MEETING_SECONDS + 2,
      });
      // The suite's other lanes run beside this meeting: its bots (and their Chromium, which
      // plays the simulated voices) come first for the CPU, as a container's share gives them.
      const bot = startBot({ platform, meetingUrl: meeting.url, logLevel: 'warn' }, prefix, simulator.url, {
        niceness: -5,
      });
      return { platform, meeting, bot };
    }),
  );

  const failures: string[] = [];
  const check = (ok: boolean, what: string) => {
    if (!ok) failures.push(what);
  };
  for (const { platform, meeting, bot } of runs) {
    expect(await bot.exited, `${platform}: ${bot.output().slice(-3000)}`).toBe(0);
    const played = (await client.getMeeting(meeting.id)).utterances;
    const heard = played.filter((utterance) => utterance.status === 'played');
    expect(heard.length, platform).toBe(played.length);
    const segments = (await botSegments(redis, prefix, bot.config.sessionId)).filter(
      (segment) => segment.final,
    );
    const timings = utteranceTimings(heard, segments);
    // Nearly every line has a segment (the recognizer may miss a word, not a sentence).
    expect(timings.length, platform).toBeGreaterThanOrEqual(Math.ceil(heard.length * 0.8));
    // Turns stay apart: the pauses between them reach the recognizer. When the simulator's
    // tracks sent no packets in pauses, Teams' jitter buffer grew to a second and ate them, and
    // about one turn in four merged with the next.
    const merged = segmentsSpanningTurns(heard, segments);
    check(
      merged.length <= Math.floor(heard.length / 10),
      `${platform}: ${merged.length} of ${segments.length} segments span two turns: ${merged.map((segment) => segment.text).join(' | ')}`,
    );

    const firstSpoken = Math.min(...heard.map((utterance) => Date.parse(utterance.speechStartedAt!)));
    const inWindow = (which: 'start' | 'end') => (timing: UtteranceTiming) => {
      const at = (timing.spokenAt - firstSpoken) / 1000;
      return which === 'start' ? at < WINDOW_SECONDS : at > MEETING_SECONDS - 2 * WINDOW_SECONDS;
    };
    const offsets = (['start', 'end'] as const).map((which) => {
      const window = timings.filter(inWindow(which));
      expect(window.length, `${platform}, ${which}`).toBeGreaterThanOrEqual(5);
      const start = median(window.map((timing) => timing.startOffsetMs));
      const end = median(window.map((timing) => timing.endOffsetMs));
      console.log(
        `[${platform}] ${which} of the meeting: segment start ${start.toFixed(0)} ms, end ${end.toFixed(0)} ms from the voice (median of ${window.length})`,
      );
      check(
        Math.abs(start) <= TOLERANCE_MS,
        `${platform}, ${which} of the meeting: segment start ${start} ms`,
      );
      check(
        Math.abs(end) <= TOLERANCE_MS + RECOGNIZER_END_MS,
        `${platform}, ${which} of the meeting: segment end ${end} ms`,
      );
      return { start, end };
    });
    const [early, late] = offsets as [(typeof offsets)[0], (typeof offsets)[0]];
    check(
      Math.abs(late.start - early.start) <= TOLERANCE_MS,
      `${platform}: starts drifted ${late.start - early.start} ms`,
    );
    // Ends carry the recognizer's word-end spread on top (30–150 ms by voice): more room.
    check(
      Math.abs(late.end - early.end) <= TOLERANCE_MS + RECOGNIZER_END_MS / 2,
      `${platform}: ends drifted ${late.end - early.end} ms`,
    );
  }
  expect(failures, failures.join('; ')).toEqual([]);
}

describe(`absolute times over a ${MEETING_SECONDS / 60}-minute meeting`, () => {
  it(
    'stay within 100 ms of when each voice was heard, at the start and at the end, on Meet and Teams',
    () => expectTimesHold(MEET_AND_TEAMS),
    (MEETING_SECONDS + 300) * 1000,
  );
  // Zoom's meeting after, not beside: a third bot in the same minutes would take the CPU margin the
  // first two are measured with (the lane's other files still run beside it).
  it(
    'stay within 100 ms of when each voice was heard, at the start and at the end, on Zoom',
    () => expectTimesHold(ZOOM),
    (MEETING_SECONDS + 300) * 1000,
  );
});
