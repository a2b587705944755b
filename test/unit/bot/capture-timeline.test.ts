import { describe, expect, it } from 'vitest';
import { CaptureTimeline } from '../../../bot/audio/capture-timeline.js';

const CHUNK = 3200; // 200 ms at 16 kHz
const T0 = Date.parse('2026-11-23T10:00:00.000Z');

/** Chunks of 200 ms of audio, each heard `wallStepMs` after the previous one. */
function steadyTimeline(chunks: number, wallStepMs: number): CaptureTimeline {
  const timeline = new CaptureTimeline();
  for (let index = 0; index < chunks; index++) timeline.append(CHUNK, T0 + index * wallStepMs);
  return timeline;
}

describe('CaptureTimeline', () => {
  it('knows nothing before the first chunk', () => {
    const timeline = new CaptureTimeline();
    expect(timeline.wallAt(0)).toBeNull();
    expect(timeline.startWall()).toBeNull();
    expect(timeline.endWall()).toBeNull();
    expect(timeline.capturedSeconds()).toBe(0);
  });

  it('maps positions inside a chunk at the audio rate from that chunk’s reading', () => {
    const timeline = steadyTimeline(3, 200);
    expect(timeline.startWall()).toBe(T0);
    expect(timeline.wallAt(0.1)).toBe(T0 + 100);
    expect(timeline.wallAt(0.45)).toBe(T0 + 450);
    expect(timeline.capturedSeconds()).toBeCloseTo(0.6, 9);
    expect(timeline.endWall()).toBe(T0 + 600);
  });

  it('does not drift over an hour when the audio clock loses frames (0.3 % slow)', () => {
    // Each 200 ms of captured audio spans 200.6 ms of wall time: a sample count from the start
    // would be 10.8 s early after an hour.
    const chunks = 18_000;
    const timeline = steadyTimeline(chunks, 200.6);
    const lastChunkStart = (chunks - 1) * 0.2;
    expect(timeline.wallAt(lastChunkStart)).toBeCloseTo(T0 + (chunks - 1) * 200.6, 6);
    expect(timeline.wallAt(lastChunkStart + 0.1)! - (T0 + (chunks - 1) * 200.6 + 100)).toBeCloseTo(0, 6);
    expect(timeline.missingSeconds()).toBeCloseTo(chunks * 0.0006 - 0.0006, 3);
  });

  it('a stall (audio missing for a second) shifts only what comes after it', () => {
    const timeline = new CaptureTimeline();
    timeline.append(CHUNK, T0);
    timeline.append(CHUNK, T0 + 200);
    timeline.append(CHUNK, T0 + 1400); // one second of wall time with no audio
    timeline.append(CHUNK, T0 + 1600);
    expect(timeline.wallAt(0.3)).toBe(T0 + 300);
    expect(timeline.wallAt(0.5)).toBe(T0 + 1500);
    expect(timeline.wallAt(0.7)).toBe(T0 + 1700);
    expect(timeline.missingSeconds()).toBeCloseTo(1, 9);
  });

  it('never maps a later chunk before an earlier one, whatever the readings jitter', () => {
    const timeline = new CaptureTimeline();
    timeline.append(CHUNK, T0 + 1000);
    timeline.append(CHUNK, T0 + 900); // a reading that ran backwards
    expect(timeline.wallAt(0.2)).toBe(T0 + 1000);
    expect(timeline.wallAt(0.3)).toBe(T0 + 1100);
  });

  it('ignores empty chunks and readings that are not numbers', () => {
    const timeline = new CaptureTimeline();
    timeline.append(0, T0);
    timeline.append(CHUNK, Number.NaN);
    expect(timeline.startWall()).toBeNull();
    timeline.append(CHUNK, T0);
    expect(timeline.capturedSeconds()).toBeCloseTo(0.2, 9);
  });

  it('extrapolates at the audio rate past the newest chunk and before the oldest kept one', () => {
    const timeline = steadyTimeline(2, 250);
    expect(timeline.wallAt(1)).toBe(T0 + 250 + 800);
    expect(timeline.wallAt(-0.1)).toBe(T0 - 100);
  });

  it('keeps hours of anchors and stays exact for the recent ones after dropping the oldest', () => {
    const chunks = 120_000; // 6.7 hours
    const timeline = steadyTimeline(chunks, 201);
    const recent = (chunks - 10) * 0.2;
    expect(timeline.wallAt(recent)).toBe(T0 + (chunks - 10) * 201);
    expect(timeline.startWall()).toBe(T0);
  });

  it('gives the newest chunk from its own anchor, exactly where it starts', () => {
    const timeline = new CaptureTimeline();
    expect(timeline.lastChunk()).toBeNull();
    // Positions that seconds cannot hold exactly (0.2 s steps): the chunk's own reading, never its neighbour's.
    for (let index = 0; index < 7; index += 1)
      timeline.append(3200, 1000 + index * 200 + (index === 6 ? 90 : 0));
    expect(timeline.lastChunk()).toEqual({ startSeconds: 1.2, startWall: 2290 });
  });
});
