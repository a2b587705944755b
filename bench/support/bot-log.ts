/**
 * A bot's log, followed from its container as it runs (the worker removes a bot's container when
 * it exits, its log with it): every line kept, and the capture-clock lines a bot logs once a minute
 * (bot/audio/capture.ts, "capture clock") read out. Those say where audio waits inside the bot's
 * page: `playoutBacklogMs` is what the page's WebRTC receivers played out against what the
 * capture's AudioContext rendered since both were first seen (audio waiting between the two
 * clocks), `missingSeconds` the wall time the capture has no audio for, `receiveDelayMs` the jitter
 * buffer's delay.
 */
import type Docker from 'dockerode';
import { followContainerLines } from '../../test/support/container-log-lines.js';

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
