/**
 * Speaker attribution accuracy per speaking signal: five people with flite voices take turns that
 * overlap (each starts before the previous one ends), the bot transcribes the meeting in-process
 * against the simulator, and every final segment's true speaker is the played utterance it
 * overlaps most (the simulator's own start and end times). The speaking changes the page reported
 * are replayed into an attribution limited to one signal at a time, then all of them, and each
 * prints its share of segments with the right name, the wrong name and none. The bot's live
 * attribution (all signals, decided when each segment was published) is printed beside them.
 *
 *   npx tsx bench/speaker-attribution.ts [--platform google_meet|teams|both] [--turns 24]
 *                                        [--hide <simulator signal>,...] [--verbose]
 */
import { randomUUID } from 'node:crypto';
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
import { botSegmentsStream } from '../shared/contract/streams.js';
import { SimulatorClient } from '../simulator/client.js';
import type { MEET_SPEAKING_SIGNALS, TEAMS_SPEAKING_SIGNALS, Voice } from '../simulator/schema.js';
import { createSimulator } from '../simulator/server.js';
import { MEETING_SENTENCES } from '../test/support/speech-script.js';

type MeetSignal = (typeof MEET_SPEAKING_SIGNALS)[number];
type TeamsSignal = (typeof TEAMS_SPEAKING_SIGNALS)[number];

const { values } = parseArgs({
  options: {
    platform: { type: 'string', default: 'both' },
    turns: { type: 'string', default: '24' },
    hide: { type: 'string', default: '' },
    verbose: { type: 'boolean', default: false },
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
 * Every other turn starts before the previous one ends (by OVERLAP_SECONDS), the others after a
 * pause long enough for the recognizer to close a segment, so segments hold one turn or two
 * overlapping ones.
 */
const OVERLAP_SECONDS = [0.5, 0.9, 0.7];
const PAUSE_SECONDS = 1.2;

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
      .map(({ turn }) => ({ at: startOf(turn), text: LINES[turn % LINES.length]! })),
  }));
}

/** The script, timed from each line's spoken length (a meeting created only to measure them). */
async function script(client: SimulatorClient, platform: 'google_meet' | 'teams', turns: number) {
  const order = turnOrder(turns);
  const probe = await client.createMeeting({
    platform,
    participants: participants(order, (turn) => turn * 10),
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
    const previous = `${PEOPLE[order[turn - 1]!]!.name}|${LINES[(turn - 1) % LINES.length]}`;
    const previousEnd = starts[turn - 1]! + (durations.get(previous) ?? 3.5);
    const shift = turn % 2 === 1 ? -OVERLAP_SECONDS[turn % OVERLAP_SECONDS.length]! : PAUSE_SECONDS;
    starts.push(Math.round((previousEnd + shift) * 100) / 100);
  });
  return { participants: participants(order, (turn) => starts[turn]!), end: starts.at(-1)! + 8 };
}

interface Played {
  speaker: string;
  start: number;
  end: number;
}

function truthOf(segment: TranscriptSegmentMessage, played: Played[]): string | null {
  const start = Date.parse(segment.absoluteStartTime);
  const end = Date.parse(segment.absoluteEndTime);
  let best: string | null = null;
  let bestOverlap = 0;
  for (const utterance of played) {
    const overlap = Math.min(end, utterance.end) - Math.max(start, utterance.start);
    if (overlap > bestOverlap) {
      bestOverlap = overlap;
      best = utterance.speaker;
    }
  }
  return best;
}

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
      extraAllowedOrigins: [simulator.url],
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
      .filter((utterance) => utterance.startedAt && utterance.endedAt)
      .map((utterance) => ({
        speaker: utterance.speaker,
        start: Date.parse(utterance.startedAt!),
        end: Date.parse(utterance.endedAt!),
      }));
    const entries = await redis.xrange(botSegmentsStream(prefix), '-', '+');
    const finals = new Map<string, TranscriptSegmentMessage>();
    for (const [, fields] of entries) {
      const decoded = decodeStreamEntry(transcriptSegmentMessage, fields);
      if (decoded.ok && decoded.value.final && decoded.value.text.trim() !== '')
        finals.set(decoded.value.segmentId, decoded.value);
    }
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    return { outcome, played, segments: [...finals.values()], changes };
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
  let right = 0;
  let wrong = 0;
  let none = 0;
  for (const segment of segments) {
    const said = name(segment);
    if (said === null) none += 1;
    else if (said === truthOf(segment, played)) right += 1;
    else wrong += 1;
  }
  const pct = (count: number) => `${((100 * count) / Math.max(1, segments.length)).toFixed(0)} %`;
  return `${pct(right).padStart(5)} right  ${pct(wrong).padStart(5)} wrong  ${pct(none).padStart(5)} none`;
}

for (const platform of PLATFORMS as ('google_meet' | 'teams')[]) {
  const { outcome, played, segments, changes } = await runMeeting(platform);
  console.log(
    `\n${platform}: ${TURNS} overlapping turns by 5 people, ${played.length} played, ${segments.length} final segments, bot ${outcome.status}/${outcome.reason}${HIDDEN.length ? `, page hides ${HIDDEN.join(', ')}` : ''}`,
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
        `    ${segment.start.toFixed(1)}–${segment.end.toFixed(1)} s truth=${truthOf(segment, played)} all=${all(segment)} ${names}`,
      );
    }
  }
  console.log(`  ${'bot, live'.padEnd(22)} ${score(segments, played, (segment) => segment.speaker)}`);
}
process.exit(0);
