/**
 * A bot's log, followed from its container as it runs (the worker removes a bot's container when
 * it exits, its log with it): every line kept, and the capture-clock lines a bot logs once a minute
 * (bot/audio/capture.ts, "capture clock") read out. Those say where audio waits inside the bot's
 * page: `playoutBacklogMs` is what the page's WebRTC receivers played out against what the
 * capture's AudioContext rendered since both were first seen (audio waiting between the two
 * clocks), `missingSeconds` the wall time the capture has no audio for, `receiveDelayMs` the jitter
 * buffer's delay.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { sleep } from '../../shared/infra/async.js';
import { followContainerLines } from '../../test/support/container-log-lines.js';
import type { Stack } from '../../test/support/stack.js';

export interface CaptureClockReading {
  playoutBacklogMs: number | null;
  missingSeconds: number | null;
  receiveDelayMs: number | null;
}

export interface FollowedBotLog {
  lines: string[];
  readings: CaptureClockReading[];
  stop(): void;
}

const CAPTURE_CLOCK_MESSAGE = 'capture clock';

function numberOr(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** One bot log line's reading, when the line is a capture-clock one. */
export function captureClockReading(line: string): CaptureClockReading | null {
  if (!line.includes(CAPTURE_CLOCK_MESSAGE)) return null;
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (entry.msg !== CAPTURE_CLOCK_MESSAGE) return null;
  return {
    playoutBacklogMs: numberOr(entry.playoutBacklogMs),
    missingSeconds: numberOr(entry.missingSeconds),
    receiveDelayMs: numberOr(entry.receiveDelayMs),
  };
}

/** Follows a container's log from its start until it ends (or `stop()`). */
export async function followBotLog(docker: Docker, containerId: string): Promise<FollowedBotLog> {
  const lines: string[] = [];
  const readings: CaptureClockReading[] = [];
  const { stop } = await followContainerLines(docker, containerId, (line) => {
    lines.push(line);
    const reading = captureClockReading(line);
    if (reading) readings.push(reading);
  });
  return { lines, readings, stop };
}

/** Follows the bot's log from when its container exists (null if none appears within a minute). */
export async function followBotLogOnceStarted(
  stack: Stack,
  meetingId: number,
): Promise<FollowedBotLog | null> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const [container] = await stack.containersOf(meetingId).catch(() => []);
    if (container) return followBotLog(stack.docker, container.Id).catch(() => null);
    await sleep(250);
  }
  return null;
}

/** Writes each bot's whole log to `directory`, one file per meeting of round `n`. */
export function saveBotLogs(
  directory: string,
  n: number,
  meetings: Array<{ meetingId: number }>,
  logs: Array<FollowedBotLog | null>,
): void {
  mkdirSync(directory, { recursive: true });
  meetings.forEach(({ meetingId }, index) => {
    const file = join(directory, `n${n}-meeting-${meetingId}.log`);
    writeFileSync(file, `${(logs[index]?.lines ?? []).join('\n')}\n`);
  });
  console.log(`  bots' logs: ${directory}`);
}
