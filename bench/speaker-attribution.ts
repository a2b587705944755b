/**
 * Speaker attribution accuracy per speaking signal: five people with flite voices take turns, every
 * third one cutting in before the previous speaker has finished, the bot transcribes the meeting in-process
 * against the simulator, and every final segment's true speaker is the person whose voice fills
 * most of it (the simulator's own times of each clip's speech). The speaking changes the page
 * reported are replayed into an attribution limited to one signal at a time, then all of them, and
 * each prints its share of segments with the right name, the wrong name and none: over all final
 * segments, and over those with a clear owner (two overlapping turns often end up in one segment,
 * and when they share it about equally its "right" name is a coin toss). The bot's live
 * attribution (all signals, decided when each segment was published) is printed beside them.
 *
 *   npx tsx bench/speaker-attribution.ts [--platform google_meet|teams|both] [--turns 45]
 *                                        [--hide <simulator signal>,...] [--verbose]
 *                                        [--save run.json | --load run.json]  (score a saved run again)
 */
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { EndSignal } from '../bot/end-signal.js';
import { createEngine } from '../bot/engines/index.js';
import { openChromiumMeetingPage } from '../bot/meeting-page.js';
import { Outbox } from '../bot/outbox.js';
import { BotSession } from '../bot/session.js';
import { type SignalledSpeakingChange, SpeakerAttribution } from '../bot/speakers/attribution.js';
import { SPEAKING_SIGNALS, type SpeakingSignal } from '../bot/speakers/signals.js';
import { botConfigSchema } from '../shared/contract/bot-config.js';
import { type TranscriptSegmentMessage, transcriptSegmentMessage } from '../shared/contract/events.js';
import { decodeStreamEntry } from '../shared/contract/stream-codec.js';
import { botSessionStream } from '../shared/contract/streams.js';
import { SimulatorClient } from '../simulator/client.js';
import type { Voice } from '../simulator/schema.js';
import { createSimulator } from '../simulator/server.js';
import type { MEET_SPEAKING_SIGNALS, TEAMS_SPEAKING_SIGNALS } from '../simulator/speaking-signals.js';
import { HOST_CHROMIUM } from '../test/support/chromium.js';
import { finalSegments } from '../test/support/segments.js';
import { MEETING_SENTENCES } from '../test/support/speech-script.js';

type MeetSignal = (typeof MEET_SPEAKING_SIGNALS)[number];
type TeamsSignal = (typeof TEAMS_SPEAKING_SIGNALS)[number];

const { values } = parseArgs({
  options: {
    platform: { type: 'string', default: 'both' },
    turns: { type: 'string', default: '45' },
    hide: { type: 'string', default: '' },
    verbose: { type: 'boolean', default: false },
    save: { type: 'string' },
    load: { type: 'string' },
  },
});
const TURNS = Math.max(5, Number(values.turns));
const PLATFORMS = values.platform === 'both' ? (['google_meet', 'teams'] as const) : [values.platform];
const HIDDEN = values.hide === '' ? [] : values.hide.split(',');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const PEOPLE = [
  { name: 'Alice Archer', voice: 'slt' },
  { name: 'Bob Baker', voice: 'rms' },
  { name: 'Carol Cooper', voice: 'awb' },
  { name: 'Dan Dawson', voice: 'kal16' },
  { name: 'Erin Ellis', voice: 'kal' },
] as const;
const LINES = MEETING_SENTENCES;
/**
 * Turns come in threes: a long turn (two lines, 6–8 s) on its own; another long one; then a short
 * one (one line) that starts OVERLAP_SECONDS before the long one ends, the next speaker cutting in.
 * A pause long enough for the recognizer to close a segment follows the lone turn and each pair,
 * so a segment holds one turn, or a long and a short overlapping one (whose long speaker owns
 * about two thirds of its voice).
 */
const OVERLAP_SECONDS = [0.5, 0.9, 0.7];
const PAUSE_SECONDS = 1.2;
const cutsIn = (turn: number) => turn % 3 === 2;
const lineOf = (turn: number) =>
  cutsIn(turn)
    ? LINES[turn % LINES.length]!
    : `${LINES[turn % LINES.length]!}. ${LINES[(turn + 3) % LINES.length]!}`;

/** A fixed but uneven order of speakers, so no one always follows the same person. */
function turnOrder(turns: number): number[] {
  const order: number[] = [];
  let state = 7;
  let previous = -1;
  while (order.length < turns) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const next = (state >> 8) % PEOPLE.length;
    if (next === previous) continue;
    order.push(next);
    previous = next;
  }
  return order;
}

type Participants = { name: string; voice: Voice; utterances: { at: number; text: string }[] }[];

function participants(order: number[], startOf: (turn: number) => number): Participants {
  return PEOPLE.map((person, index) => ({
    ...person,
    utterances: order
      .map((speaker, turn) => ({ speaker, turn }))
      .filter(({ speaker }) => speaker === index)
      .map(({ turn }) => ({ at: startOf(turn), text: lineOf(turn) })),
  }));
}

/** The script, timed from each line's spoken length (a meeting created only to measure them). */
async function script(client: SimulatorClient, platform: 'google_meet' | 'teams', turns: number) {
  const order = turnOrder(turns);
  const probe = await client.createMeeting({
    platform,
    participants: participants(order, (turn) => turn * 12),
  } as never);
  const durations = new Map<string, number>();
  for (const utterance of probe.utterances)
    durations.set(`${utterance.speaker}|${utterance.text}`, utterance.durationSeconds);
  const starts: number[] = [];
  order.forEach((_speaker, turn) => {
    if (turn === 0) {
      starts.push(1);
      return;
    }
    const previous = `${PEOPLE[order[turn - 1]!]!.name}|${lineOf(turn - 1)}`;
    const previousEnd = starts[turn - 1]! + (durations.get(previous) ?? 7);
    const shift = cutsIn(turn) ? -OVERLAP_SECONDS[turn % OVERLAP_SECONDS.length]! : PAUSE_SECONDS;
    starts.push(Math.round((previousEnd + shift) * 100) / 100);
  });
  return { participants: participants(order, (turn) => starts[turn]!), end: starts.at(-1)! + 8 };
}

interface Played {
  speaker: string;
  start: number;
  end: number;
}

/**
 * The person whose voice (the clip's speech, its leading and trailing silence left out) fills most
 * of the segment, and their share of the voice in it; a segment that two overlapping turns share
 * about equally has no clear owner.
 */
function truthOf(
  segment: TranscriptSegmentMessage,
  played: Played[],
): { name: string | null; share: number } {
  const start = Date.parse(segment.absoluteStartTime);
  const end = Date.parse(segment.absoluteEndTime);
  const voice = new Map<string, number>();
  let total = 0;
  for (const utterance of played) {
    const overlap = Math.min(end, utterance.end) - Math.max(start, utterance.start);
    if (overlap <= 0) continue;
    voice.set(utterance.speaker, (voice.get(utterance.speaker) ?? 0) + overlap);
    total += overlap;
  }
  let best: string | null = null;
  let bestVoice = 0;
  for (const [name, ms] of voice) {
    if (ms > bestVoice) {
      bestVoice = ms;
      best = name;
    }
  }
  return { name: best, share: total > 0 ? bestVoice / total : 0 };
}

/** A segment's owner is clear when their voice is at least this share of the voice in it. */
const CLEAR_SHARE = 0.6;

async function runMeeting(platform: 'google_meet' | 'teams') {
  const simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
  const redis = new Redis(REDIS_URL);
  const prefix = `bench-attribution-${randomUUID().slice(0, 8)}`;
  try {
    const client = new SimulatorClient(simulator.url);
    const timed = await script(client, platform, TURNS);
    // Every signal the page can show is on: Meet's People panel open and its tiles toggling a
    // class seen on the real page, Teams' live captions on.
    const meeting = await client.createMeeting(
      platform === 'google_meet'
        ? {
            platform,
            admission: { policy: 'after', delaySeconds: 1 },
            participants: timed.participants,
            endAt: timed.end,
            traps: { peoplePanelOpen: true },
            speaking: { hidden: HIDDEN as MeetSignal[], tileClass: 'Oaajhc' },
          }
        : {
            platform,
            admission: { policy: 'after', delaySeconds: 1 },
            participants: timed.participants,
            endAt: timed.end,
            traps: { liveCaptions: true },
            speaking: { hidden: HIDDEN as TeamsSignal[] },
          },
    );
    const config = botConfigSchema.parse({
      meetingId: 900_000 + Math.floor(Math.random() * 90_000),
      sessionId: randomUUID(),
      platform,
      meetingUrl: meeting.url,
      botName: 'Meetbot Notetaker',
      language: 'en',
      redisUrl: REDIS_URL,
      streamPrefix: prefix,
      streams: 'own' as const,
      extraAllowedOrigins: [simulator.url],
      browser: HOST_CHROMIUM,
    });
    const log = pino({ level: 'warn' });
    const outbox = new Outbox(redis, config, log);
    const changes: SignalledSpeakingChange[] = [];
    const session = new BotSession({
      config,
      outbox,
      log,
      createEngine,
      end: new EndSignal(),
      openPage: (pageConfig, hooks, pageLog) =>
        openChromiumMeetingPage(
          pageConfig,
          {
            ...hooks,
            onSpeaking: (change) => {
              changes.push(change);
              hooks.onSpeaking(change);
            },
          },
          pageLog,
        ),
    });
    const outcome = await session.run();
    await outbox.drain();
    const snapshot = await client.getMeeting(meeting.id);
    const played: Played[] = snapshot.utterances
      .filter((utterance) => utterance.speechStartedAt && utterance.speechEndedAt)
      .map((utterance) => ({
        speaker: utterance.speaker,
        start: Date.parse(utterance.speechStartedAt!),
        end: Date.parse(utterance.speechEndedAt!),
      }));
    const entries = await redis.xrange(botSessionStream(prefix, config.sessionId, 'segments'), '-', '+');
    const segments = finalSegments(
      entries.flatMap(([, fields]) => {
        const decoded = decodeStreamEntry(transcriptSegmentMessage, fields);
        return decoded.ok ? [decoded.value] : [];
      }),
    );
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    return { outcome, played, segments, changes };
  } finally {
    redis.disconnect();
    await simulator.close();
  }
}

function score(
  segments: TranscriptSegmentMessage[],
  played: Played[],
  name: (segment: TranscriptSegmentMessage) => string | null,
) {
  const count = (subset: TranscriptSegmentMessage[]) => {
    let right = 0;
    let wrong = 0;
    for (const segment of subset) {
      const said = name(segment);
      if (said === null) continue;
      if (said === truthOf(segment, played).name) right += 1;
      else wrong += 1;
    }
    const pct = (n: number) => `${((100 * n) / Math.max(1, subset.length)).toFixed(0)} %`.padStart(5);
    return `${pct(right)} right ${pct(wrong)} wrong ${pct(subset.length - right - wrong)} none`;
  };
  const clear = segments.filter((segment) => truthOf(segment, played).share >= CLEAR_SHARE);
  return `${count(segments)}   | clear owner: ${count(clear)}`;
}

type Run = Awaited<ReturnType<typeof runMeeting>> & { platform: string };
const runs: Run[] = values.load ? JSON.parse(await readFile(values.load, 'utf8')) : [];
if (!values.load) {
  for (const platform of PLATFORMS as ('google_meet' | 'teams')[])
    runs.push({ platform, ...(await runMeeting(platform)) });
  if (values.save) await writeFile(values.save, JSON.stringify(runs));
}
for (const { platform, outcome, played, segments, changes } of runs) {
  console.log(
    `\n${platform}: ${TURNS} turns by 5 people (every third cutting in), ${played.length} played, ${segments.length} final segments, bot ${outcome.status}/${outcome.reason}${HIDDEN.length ? `, page hides ${HIDDEN.join(', ')}` : ''}`,
  );
  const clear = segments.filter((segment) => truthOf(segment, played).share >= CLEAR_SHARE).length;
  console.log(
    `  ${clear} of the segments have a clear owner (≥ ${CLEAR_SHARE * 100} % of the voice in them)`,
  );
  const seen = new Set(changes.map((change) => change.signal));
  const replay = (signals: readonly SpeakingSignal[]) => {
    const attribution = new SpeakerAttribution({ signals });
    for (const change of changes) attribution.record(change);
    return (segment: TranscriptSegmentMessage) => attribution.attribute(segment.start, segment.end);
  };
  for (const signal of SPEAKING_SIGNALS) {
    if (!seen.has(signal)) continue;
    console.log(`  ${signal.padEnd(16)} alone  ${score(segments, played, replay([signal]))}`);
  }
  const all = replay(SPEAKING_SIGNALS);
  console.log(`  ${'all signals'.padEnd(22)} ${score(segments, played, all)}`);
  if (values.verbose) {
    const alone = [...seen].map((signal) => [signal, replay([signal])] as const);
    for (const segment of segments) {
      const names = alone.map(([signal, name]) => `${signal}=${name(segment) ?? '-'}`).join(' ');
      console.log(
        `    ${segment.start.toFixed(1)}–${segment.end.toFixed(1)} s truth=${truthOf(segment, played).name} (${(truthOf(segment, played).share * 100).toFixed(0)} %) all=${all(segment)} ${names}`,
      );
    }
  }
  console.log(`  ${'bot, live'.padEnd(22)} ${score(segments, played, (segment) => segment.speaker)}`);
}
process.exit(0);
