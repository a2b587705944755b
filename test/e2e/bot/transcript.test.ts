import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptSegmentMessage } from '../../../shared/contract/events.js';
import { SimulatorClient } from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import { createTestRedis, deleteKeys, uniquePrefix } from '../../support/redis.js';
import { finalSegments } from '../../support/segments.js';
import { wordErrorRate } from '../../support/wer.js';
import { botSegments, expectEndedWithMeeting, startBot } from './bot-harness.js';

const prefix = uniquePrefix('bot-transcript');
const redis = createTestRedis();

const SCRIPT = [
  {
    name: 'Alice Archer',
    at: 1,
    text: 'Good morning everyone. We will review the project schedule for this week.',
  },
  { name: 'Bob Baker', at: 7, text: 'The design work is finished and the testing will start on Monday.' },
  {
    name: 'Carol Cooper',
    at: 13,
    text: 'That sounds good. I will send the report to the team tomorrow morning.',
  },
];

/**
 * Script times are when the simulator's page started playing each line; segment times are when its
 * audio reached the bot. A single mixed track (Teams, and Meet's mixed sessions) goes through a
 * WebRTC loopback whose receive buffer, measured here, delivers the third line 0.8–1.3 s late
 * (the captured audio's energy and the engine agree; the speaking indicators are on time), so
 * mixed tracks get more room than Meet's per-slot tracks.
 */
const TIME_TOLERANCE_MS = { slots: 1000, mixed: 1500 } as const;

const ms = (iso: string) => Date.parse(iso);

/**
 * Each run hides one of the page's speaking signals (simulator `speaking.hidden`, or Meet's People
 * panel left closed), so the names must come from the others: every signal of Meet and Teams is
 * missing in one run; Zoom's active speaker is its only page signal, so its run hides WebRTC levels.
 */
const VARIANTS = [
  {
    label: 'Google Meet, three audio slots, People panel closed',
    platform: 'google_meet',
    audio: { mode: 'slots', trackDelaySeconds: 0 },
  },
  {
    label: 'Google Meet, three audio slots, no data-audio-level',
    platform: 'google_meet',
    audio: { mode: 'slots', trackDelaySeconds: 0 },
    traps: { peoplePanelOpen: true },
    speaking: { hidden: ['audio_level'] },
  },
  {
    label: 'Google Meet, three audio slots, no speaking class',
    platform: 'google_meet',
    audio: { mode: 'slots', trackDelaySeconds: 0 },
    traps: { peoplePanelOpen: true },
    speaking: { hidden: ['tile_class'] },
  },
  // Tracks that appear after the bot joined, and Meet's one-mixed-track sessions without <audio>.
  {
    label: 'Google Meet, one mixed track arriving late, no WebRTC audio levels',
    platform: 'google_meet',
    audio: { mode: 'mixed', trackDelaySeconds: 0.5 },
    speaking: { hidden: ['webrtc'] },
  },
  {
    label: 'Teams, main mixed track arriving late, vdi-frame-occlusion never changing',
    platform: 'teams',
    audio: { mode: 'mixed', trackDelaySeconds: 0.5 },
    speaking: { hidden: ['outline_class'] },
  },
  {
    label: 'Teams, no outline style',
    platform: 'teams',
    audio: { mode: 'mixed', trackDelaySeconds: 0 },
    speaking: { hidden: ['outline_style'] },
  },
  {
    label: 'Teams, no WebRTC audio levels',
    platform: 'teams',
    audio: { mode: 'mixed', trackDelaySeconds: 0 },
    speaking: { hidden: ['webrtc'] },
  },
  // The other capture (BOT_AUDIO_CAPTURE=track-processor): each track read as its receiver plays it.
  {
    label: 'track-processor: Google Meet, three audio slots',
    platform: 'google_meet',
    audio: { mode: 'slots', trackDelaySeconds: 0 },
    capture: 'track-processor',
  },
  {
    label: 'track-processor: Teams, main mixed track arriving late',
    platform: 'teams',
    audio: { mode: 'mixed', trackDelaySeconds: 0.5 },
    capture: 'track-processor',
  },
  // Zoom: one mixed track once "Join Audio by Computer" is answered; names from the active speaker.
  {
    label: 'Zoom, one mixed track after "Join Audio by Computer", no WebRTC audio levels',
    platform: 'zoom',
    audio: { mode: 'mixed', trackDelaySeconds: 0 },
    traps: { joinAudioDialog: true },
    speaking: { hidden: ['webrtc'] },
  },
] as const;

let simulator: Simulator;

beforeAll(async () => {
  simulator = await createSimulator({ host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await simulator?.close();
  await deleteKeys(redis, prefix);
  redis.disconnect();
});

/**
 * The variants run two at a time (the e2e project's maxConcurrency): two bots keep up on a 2-core
 * machine (docs/benchmarks.md, "Capacity"), and each has its own meeting.
 */
describe('a three-speaker meeting', () => {
  it.concurrent.each(VARIANTS)(
    '$label: is transcribed live, each segment with its speaker and its time',
    async (variant) => {
      const { platform, audio } = variant;
      const client = new SimulatorClient(simulator.url);
      const meeting = await client.createMeeting({
        platform,
        audio,
        ...('traps' in variant ? { traps: variant.traps } : {}),
        speaking: { hidden: 'speaking' in variant ? [...variant.speaking.hidden] : [] },
        admission: { policy: 'after', delaySeconds: 1 },
        participants: SCRIPT.map(({ name, at, text }) => ({ name, utterances: [{ at, text }] })),
        endAt: 21,
      });
      const bot = startBot(
        {
          platform,
          meetingUrl: meeting.url,
          ...('capture' in variant && { audioCapture: variant.capture }),
        },
        prefix,
        simulator.url,
      );
      await expectEndedWithMeeting(redis, prefix, bot);
      // The capture asked for is the one that ran (the page falls back where it can't read tracks).
      if ('capture' in variant)
        expect(bot.output()).toMatch(/"mode":"track-processor","msg":"audio capture started"/);

      const played = (await client.getMeeting(meeting.id)).utterances;
      expect(played.map((utterance) => utterance.status)).toEqual(['played', 'played', 'played']);
      const segments = finalSegments(await botSegments(redis, prefix, bot.config.sessionId));
      // What was heard, before any check: a failure then shows whether lines merged or went missing.
      const segmentLines = segments.map(
        (s) => `${s.start.toFixed(2)}–${s.end.toFixed(2)} ${s.speaker}: ${s.text}`,
      );
      console.log(`[${variant.label}] segments:\n  ${segmentLines.join('\n  ')}`);
      expect(segments.length, segmentLines.join(' | ')).toBeGreaterThanOrEqual(SCRIPT.length);

      // Chronological, on both clocks.
      for (let i = 1; i < segments.length; i++) {
        expect(segments[i]!.start).toBeGreaterThanOrEqual(segments[i - 1]!.end - 0.01);
        expect(ms(segments[i]!.absoluteStartTime)).toBeGreaterThanOrEqual(
          ms(segments[i - 1]!.absoluteStartTime),
        );
      }

      const reference = SCRIPT.map((line) => line.text).join(' ');
      const hypothesis = segments.map((segment) => segment.text).join(' ');
      const wer = wordErrorRate(reference, hypothesis);
      console.log(
        `[${variant.label}] WER ${(wer.rate * 100).toFixed(1)} % over ${wer.referenceWords} words: "${hypothesis}"`,
      );
      expect(wer.rate).toBeLessThanOrEqual(0.15);

      // Each segment belongs to the utterance it overlaps most, and carries that utterance's speaker.
      const byUtterance = new Map<string, TranscriptSegmentMessage[]>();
      for (const segment of segments) {
        let best: (typeof played)[number] | undefined;
        let bestOverlap = 0;
        for (const utterance of played) {
          const overlap =
            Math.min(ms(segment.absoluteEndTime), ms(utterance.endedAt!)) -
            Math.max(ms(segment.absoluteStartTime), ms(utterance.startedAt!));
          if (overlap > bestOverlap) {
            bestOverlap = overlap;
            best = utterance;
          }
        }
        expect(best, `segment "${segment.text}" overlaps no utterance`).toBeDefined();
        expect(segment.speaker, segment.text).toBe(best!.speaker);
        byUtterance.set(best!.id, [...(byUtterance.get(best!.id) ?? []), segment]);
      }
      for (const utterance of played) {
        const mine = byUtterance.get(utterance.id) ?? [];
        expect(mine.length, `no segment for "${utterance.text}"`).toBeGreaterThan(0);
        const start = Math.min(...mine.map((segment) => ms(segment.absoluteStartTime)));
        const end = Math.max(...mine.map((segment) => ms(segment.absoluteEndTime)));
        console.log(
          `[${variant.label}] ${utterance.speaker}: start off by ${start - ms(utterance.startedAt!)} ms, end by ${end - ms(utterance.endedAt!)} ms`,
        );
        expect(
          Math.abs(start - ms(utterance.startedAt!)),
          `start of "${utterance.text}"`,
        ).toBeLessThanOrEqual(TIME_TOLERANCE_MS[audio.mode]);
        expect(Math.abs(end - ms(utterance.endedAt!)), `end of "${utterance.text}"`).toBeLessThanOrEqual(
          TIME_TOLERANCE_MS[audio.mode],
        );
      }
    },
  );
});
