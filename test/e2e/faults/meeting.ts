import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { botDeadLetterStream } from '../../../shared/contract/streams.js';
import { INGEST_GROUP } from '../../../worker/ingest/ingester.js';
import {
  deploymentContainers,
  followBotLog,
  lagSummary,
  publishedSegments,
  segmentStreamsOf,
  storedSegments,
  transcriptProblems,
} from '../../support/fault-audit.js';
import type { Stack } from '../../support/stack.js';

/** Five speakers, one sentence each, about six seconds apart: room for a fault between any two. */
export const FAULT_SCRIPT = [
  { name: 'Alice Archer', voice: 'slt' as const, text: 'good morning everyone and welcome to the review' },
  { name: 'Bob Baker', voice: 'rms' as const, text: 'thank you I finished the quarterly report yesterday' },
  { name: 'Carol Chen', voice: 'awb' as const, text: 'the new office opens in the spring' },
  { name: 'Dan Doyle', voice: 'kal' as const, text: 'we hired two engineers last month' },
  { name: 'Erin Evans', voice: 'kal16' as const, text: 'that is all from me thank you' },
].map((speaker, index) => ({
  name: speaker.name,
  voice: speaker.voice,
  utterances: [{ at: 1 + index * 6, text: speaker.text }],
}));

export type FaultScript = typeof FAULT_SCRIPT;

/** A second, short meeting: one sentence. */
export const ONE_SENTENCE: FaultScript = [
  { name: 'Fay Foster', voice: 'awb', utterances: [{ at: 1, text: 'this meeting started after the fault' }] },
];

export interface RunningMeeting {
  script: FaultScript;
  meetingId: number;
  nativeId: string;
  containerId: string;
  botLog: Awaited<ReturnType<typeof followBotLog>>;
}

/** Sends a bot into an open Google Meet meeting with the script and waits until it is active. */
export async function startFaultMeeting(stack: Stack, script = FAULT_SCRIPT): Promise<RunningMeeting> {
  const { meetingId, nativeId } = await stack.createMeetingAndBot({
    platform: 'google_meet',
    admission: { policy: 'open' },
    participants: script,
  });
  const seen = await stack.waitForStatus(meetingId, ['active', 'failed', 'completed'], 180_000);
  expect(seen.at(-1)).toBe('active');
  const [container] = await stack.containersOf(meetingId);
  expect(container?.State).toBe('running');
  const botLog = await followBotLog(stack.docker, container!.Id);
  return { script, meetingId, nativeId, containerId: container!.Id, botLog };
}

/** Waits until the simulator has played the `index`-th speaker's sentence. */
export async function waitForSpoken(stack: Stack, nativeId: string, index: number): Promise<void> {
  const speaker = FAULT_SCRIPT[index]!.name;
  await stack.simulator.waitFor(
    nativeId,
    (meeting) => meeting.utterances.find((u) => u.speaker === speaker)?.status === 'played',
    `${speaker}'s utterance`,
    { timeoutMs: 90_000 },
  );
}

/**
 * Ends the meeting in the simulator once every sentence was spoken, and checks it ended
 * `completed` (meeting_ended) with its container removed.
 */
export async function endFaultMeeting(stack: Stack, meeting: RunningMeeting): Promise<void> {
  const played = await stack.simulator.waitForSpeechDone(meeting.nativeId, { timeoutMs: 120_000 });
  expect(played.utterances.map((u) => u.status)).toEqual(meeting.script.map(() => 'played'));
  await stack.simulator.endMeeting(meeting.nativeId);
  const seen = await stack.waitForStatus(meeting.meetingId, ['completed', 'failed'], 90_000);
  const events = await stack.api.request('GET', `/meetings/${meeting.meetingId}/events`, {
    key: stack.user.key,
  });
  expect(seen.at(-1), JSON.stringify(events.body)).toBe('completed');
  expect(events.body.events.at(-1)).toMatchObject({
    to: 'completed',
    source: 'bot',
    reason: 'meeting_ended',
  });
}

export interface TranscriptFigures {
  published: number;
  stored: number;
  botLogged: number;
  copiesInStream: number;
  lag: { maxSeconds: number; medianSeconds: number };
}

/**
 * Every segment the bot published (its log and the stream) is stored once, as last published; each
 * spoken sentence has a segment of its speaker; nothing is left pending or dead-lettered; the
 * worker removed the bot container. Returns the figures for the report.
 */
export async function auditFaultMeeting(
  stack: Stack,
  redis: Redis,
  meeting: RunningMeeting,
): Promise<TranscriptFigures> {
  const prefix = stack.api.prefix;
  // The worker removes the container of an ended meeting (not the stack's clean-up).
  await expect
    .poll(() => stack.containersOf(meeting.meetingId), { timeout: 60_000, interval: 500 })
    .toEqual([]);
  meeting.botLog.stop();

  // Everything the bot appended has been applied and acknowledged.
  await expect
    .poll(
      async () => {
        let pending = 0;
        for (const stream of await segmentStreamsOf(redis, prefix, meeting.meetingId)) {
          pending += ((await redis.xpending(stream, INGEST_GROUP)) as [number, ...unknown[]])[0];
        }
        return pending;
      },
      { timeout: 30_000, interval: 500 },
    )
    .toBe(0);
  expect(await redis.xlen(botDeadLetterStream(prefix))).toBe(0);

  const published = await publishedSegments(redis, prefix, meeting.meetingId);
  const stored = await storedSegments(stack.api.database.db, meeting.meetingId);
  expect(transcriptProblems(published, stored, meeting.botLog.segmentIds)).toEqual([]);
  expect(meeting.botLog.segmentIds.size).toBe(published.size);

  // The bot heard every sentence: a lost publish would show here even if the stream lost it too.
  const transcript = await stack.api.request('GET', `/transcripts/google_meet/${meeting.nativeId}`, {
    key: stack.user.key,
  });
  const speakers = new Set((transcript.body.segments as Array<{ speaker: string }>).map((s) => s.speaker));
  for (const speaker of meeting.script)
    expect(speakers, `a segment of ${speaker.name}`).toContain(speaker.name);

  return {
    published: published.size,
    stored: stored.length,
    botLogged: meeting.botLog.segmentIds.size,
    copiesInStream: [...published.values()].reduce((sum, segment) => sum + segment.copies, 0),
    lag: lagSummary(stored),
  };
}

/** Once every meeting ended, the workers left no container of the deployment behind (checked before the stack's own clean-up). */
export async function expectNoContainers(stack: Stack): Promise<void> {
  await expect
    .poll(() => deploymentContainers(stack.docker, stack.api.prefix), { timeout: 60_000, interval: 500 })
    .toEqual([]);
}
