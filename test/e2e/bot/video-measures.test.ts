import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptSegmentMessage } from '../../../shared/contract/events.js';
import { botSessionStream } from '../../../shared/contract/streams.js';
import { type BotSnapshot, SimulatorClient } from '../../../simulator/client.js';
import { REALISTIC_LOAD } from '../../../simulator/schema.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import { finalSegments } from '../../support/segments.js';
import { wordErrorRate } from '../../support/wer.js';
import { botSegments, expectEndedWithMeeting, startBot } from './bot-harness.js';

// The bot's video measures (bot/video/, BOT_SKIP_VIDEO) in a meeting with the realistic load: six
// cameras as WebRTC video, a screen share from the start (half the time), the real client's page
// weight. With the measures the page stops decoding cameras once the bot turned incoming video off
// in the meeting's settings, and the transcript, its speaker names and the recording are as without
// video; without them (the control) the page decodes every camera all along.

const prefix = uniquePrefix('bot-video');
const redis = createTestRedis();

const SCRIPT = [
  {
    name: 'Alice Archer',
    at: 3,
    text: 'Good morning everyone. We will review the project schedule for this week.',
  },
  { name: 'Bob Baker', at: 9, text: 'The design work is finished and the testing will start on Monday.' },
  {
    name: 'Carol Cooper',
    at: 15,
    text: 'That sounds good. I will send the report to the team tomorrow morning.',
  },
];
const SILENT = ['Dana Drake', 'Evan Ellis', 'Fay Foster'];
/** The loaded page and a busy machine: a little more room than the audio-only transcript test's 15 %. */
const MAX_WER = 0.2;

const ms = (iso: string) => Date.parse(iso);

let simulator: Simulator;

beforeAll(async () => {
  simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await simulator?.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

interface Run {
  received: BotSnapshot['receivedVideo'];
  /** Camera frames decoded by the first report with incoming video off, and at the end. */
  camerasAtOff: number | null;
  segments: TranscriptSegmentMessage[];
  recordingChunks: number;
}

async function meetingWithBot(platform: 'google_meet' | 'teams', skip: boolean): Promise<Run> {
  const client = new SimulatorClient(simulator.url);
  const meeting = await client.createMeeting({
    platform,
    admission: { policy: 'after', delaySeconds: 1 },
    participants: [
      ...SCRIPT.map(({ name, at, text }) => ({ name, utterances: [{ at, text }] })),
      ...SILENT.map((name) => ({ name })),
    ],
    load: REALISTIC_LOAD,
    endAt: 45,
  });
  const bot = startBot(
    { platform, meetingUrl: meeting.url, video: { skip }, recording: { enabled: true } },
    prefix,
    simulator.url,
  );
  let camerasAtOff: number | null = null;
  const watching = (async () => {
    for (;;) {
      const { bot: seen } = await client.getMeeting(meeting.id);
      if (camerasAtOff === null && seen.receivedVideo.incomingVideo === false)
        camerasAtOff = seen.receivedVideo.cameraFramesDecoded;
      if (['left', 'ended'].includes(seen.state) || seen.leftAt) return;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  await expectEndedWithMeeting(redis, prefix, bot);
  // What the bot said about its video measures (whether the setting was reached, frames decoded).
  const videoLog = bot
    .output()
    .split('\n')
    .filter((line) => line.includes('"component":"video"'));
  console.log(`[${platform}, skip ${skip}] the bot's video log:\n  ${videoLog.join('\n  ')}`);
  await watching.catch(() => {});
  const snapshot = await client.getMeeting(meeting.id);
  expect(snapshot.utterances.map((utterance) => utterance.status)).toEqual(['played', 'played', 'played']);
  const segments = finalSegments(await botSegments(redis, prefix, bot.config.sessionId));
  const lines = segments.map((s) => `${s.start.toFixed(2)}–${s.end.toFixed(2)} ${s.speaker}: ${s.text}`);
  console.log(
    `[${platform}, skip ${skip}] received ${JSON.stringify(snapshot.bot.receivedVideo)}, cameras at off ${camerasAtOff}\n  ${lines.join('\n  ')}`,
  );

  // The transcript and its speaker names, against the script.
  const wer = wordErrorRate(SCRIPT.map((line) => line.text).join(' '), segments.map((s) => s.text).join(' '));
  expect(wer.rate, lines.join(' | ')).toBeLessThanOrEqual(MAX_WER);
  for (const utterance of snapshot.utterances) {
    const overlapping = segments.filter(
      (segment) =>
        Math.min(ms(segment.absoluteEndTime), ms(utterance.endedAt!)) -
          Math.max(ms(segment.absoluteStartTime), ms(utterance.startedAt!)) >
        0,
    );
    expect(overlapping.length, `no segment for "${utterance.text}"`).toBeGreaterThan(0);
    expect(new Set(overlapping.map((segment) => segment.speaker)), utterance.text).toEqual(
      new Set([utterance.speaker]),
    );
  }
  const recordingChunks = await redis.xlen(botSessionStream(prefix, bot.config.sessionId, 'recording'));
  return { received: snapshot.bot.receivedVideo, camerasAtOff, segments, recordingChunks };
}

describe('the bot’s video measures under realistic load', () => {
  it.concurrent.each(['google_meet', 'teams'] as const)(
    '%s: with BOT_SKIP_VIDEO the page stops decoding cameras, and transcript, names and recording are intact',
    async (platform) => {
      const run = await meetingWithBot(platform, true);
      expect(run.received.incomingVideo).toBe(false);
      // Not one camera frame decoded after the setting went off; a shared screen still comes.
      expect(run.camerasAtOff).not.toBeNull();
      expect(run.received.cameraFramesDecoded).toBe(run.camerasAtOff);
      expect(run.received.screenFramesDecoded).toBeGreaterThan(0);
      expect(run.recordingChunks).toBeGreaterThan(0);
    },
  );

  it('Google Meet with BOT_SKIP_VIDEO=false: the page decodes every camera for the whole call', async () => {
    const run = await meetingWithBot('google_meet', false);
    expect(run.received.incomingVideo).toBe(true);
    expect(run.camerasAtOff).toBeNull();
    // Six cameras (one at 30 fps, five at 15) for about 20 s: thousands of frames on an idle machine.
    expect(run.received.cameraFramesDecoded).toBeGreaterThan(500);
  });
});
