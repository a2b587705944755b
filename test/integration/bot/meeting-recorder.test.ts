import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CaptureTimeline } from '../../../bot/audio/capture-timeline.js';
import { MeetingRecorder, type RecordingChunk } from '../../../bot/recording/meeting-recorder.js';
import { createLogger } from '../../../shared/infra/logger.js';

const RATE = 16_000;
const CHUNK = RATE / 5; // 200 ms, as the page delivers
const log = createLogger('recorder-test', 'silent');

function requireTool(command: string): void {
  if (spawnSync(command, ['--version']).error) {
    throw new Error(
      `${command} is missing: install Debian's opus-tools (scripts/lib/common.sh ensure_bot_host_packages)`,
    );
  }
}

/** 200 ms of a 1 kHz tone, or of silence. */
function chunkOf(tone: boolean): Int16Array {
  const samples = new Int16Array(CHUNK);
  if (tone)
    for (let i = 0; i < CHUNK; i += 1)
      samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / RATE));
  return samples;
}

/** Decodes an Ogg Opus file to 16 kHz mono samples with opusdec (pre-skip honoured). */
function decode(bytes: Buffer): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), 'recorder-'));
  writeFileSync(join(dir, 'in.opus'), bytes);
  const result = spawnSync('opusdec', [
    '--quiet',
    '--rate',
    String(RATE),
    '--force-wav',
    join(dir, 'in.opus'),
    join(dir, 'out.wav'),
  ]);
  if (result.status !== 0) throw new Error(`opusdec failed: ${result.stderr.toString()}`);
  const wav = readFileSync(join(dir, 'out.wav'));
  const dataAt = wav.indexOf('data') + 8;
  const pcm = wav.subarray(dataAt);
  return new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + (pcm.length & ~1)));
}

/** Seconds where the decoded audio first turns loud after `from` seconds (10 ms windows). */
function onsetAfter(samples: Int16Array, from: number): number {
  const window = RATE / 100;
  for (let start = Math.round(from * RATE); start + window <= samples.length; start += window) {
    let sum = 0;
    for (let i = start; i < start + window; i += 1) sum += (samples[i] ?? 0) ** 2;
    if (Math.sqrt(sum / window) > 2000) return start / RATE;
  }
  return Number.NaN;
}

/** A recorder on its own capture timeline, collecting the chunks it sends. */
function recorderUnderTest(options: { chunkSeconds?: number; encoderCommand?: string }) {
  const timeline = new CaptureTimeline(RATE);
  const chunks: RecordingChunk[] = [];
  const recorder = new MeetingRecorder({
    sampleRate: RATE,
    timeline,
    onChunk: (chunk) => chunks.push(chunk),
    log,
    ...options,
  });
  return { timeline, chunks, recorder };
}

describe('meeting recorder', () => {
  it('records an Ogg Opus stream whose time runs with the capture clock, gaps filled with silence', async () => {
    requireTool('opusenc');
    requireTool('opusdec');
    const { timeline, chunks, recorder } = recorderUnderTest({ chunkSeconds: 0 });
    // 0–2 s silence, a tone at 2.0 s for 0.4 s, silence; then the capture stalls 1.4 s (no chunks
    // for that wall time) and resumes at 5.0 s with a tone at 6.0 s. Wall time is what counts.
    const origin = 1_700_000_000_000;
    const deliver = (atSeconds: number, tone: boolean) => {
      const samples = chunkOf(tone);
      timeline.append(samples.length, origin + atSeconds * 1000);
      recorder.write(samples);
    };
    for (let t = 0; t < 3.6 - 1e-9; t += 0.2) deliver(t, t >= 2 - 1e-9 && t < 2.4 - 1e-9);
    for (let t = 5; t < 8 - 1e-9; t += 0.2) deliver(t, t >= 6 - 1e-9 && t < 6.4 - 1e-9);
    await recorder.stop();

    expect(chunks.map((chunk) => chunk.seq)).toEqual(chunks.map((_, index) => index));
    expect(chunks.at(-1)?.final).toBe(true);
    expect(chunks.filter((chunk) => chunk.final)).toHaveLength(1);
    expect(chunks.at(-1)?.error).toBeUndefined();
    expect(chunks.at(-1)?.endSeconds).toBeCloseTo(8, 2);
    const file = Buffer.concat(chunks.map((chunk) => chunk.bytes));
    expect(file.subarray(0, 4).toString()).toBe('OggS');
    const decoded = decode(file);
    expect(decoded.length / RATE).toBeCloseTo(8, 1);
    expect(Math.abs(onsetAfter(decoded, 0) - 2)).toBeLessThan(0.02);
    expect(Math.abs(onsetAfter(decoded, 3) - 6)).toBeLessThan(0.02);
    // ≈ 24 kbit/s at most, for 8 s.
    expect(file.length).toBeLessThan(8 * 3000 * 1.5);
  });

  it('puts no silence inside speech when a wall-time reading jumps late mid-word; the next quiet chunk takes the gap', async () => {
    requireTool('opusenc');
    requireTool('opusdec');
    const { timeline, chunks, recorder } = recorderUnderTest({ chunkSeconds: 0 });
    // A tone from 2.0 s to 3.0 s whose chunk at 2.4 s is read 0.3 s late (a loaded page's clock
    // reading), the rest on time; a second tone at 5.0 s.
    const origin = 1_700_000_000_000;
    for (let t = 0; t < 7 - 1e-9; t += 0.2) {
      const tone = (t >= 2 - 1e-9 && t < 3 - 1e-9) || (t >= 5 - 1e-9 && t < 5.4 - 1e-9);
      const late = Math.abs(t - 2.4) < 1e-9 ? 300 : 0;
      const samples = chunkOf(tone);
      timeline.append(samples.length, origin + t * 1000 + late);
      recorder.write(samples);
    }
    await recorder.stop();
    const decoded = decode(Buffer.concat(chunks.map((chunk) => chunk.bytes)));
    // The first tone is whole: loud from its onset to 1 s later, with no quiet 10 ms window inside.
    const onset = onsetAfter(decoded, 0);
    expect(Math.abs(onset - 2)).toBeLessThan(0.02);
    const window = RATE / 100;
    for (
      let start = Math.round((onset + 0.02) * RATE);
      start + window <= (onset + 0.96) * RATE;
      start += window
    ) {
      let sum = 0;
      for (let i = start; i < start + window; i += 1) sum += (decoded[i] ?? 0) ** 2;
      expect(Math.sqrt(sum / window), `at ${(start / RATE).toFixed(2)} s`).toBeGreaterThan(2000);
    }
    // And the recording is back in step by the second tone.
    expect(Math.abs(onsetAfter(decoded, 3.5) - 5)).toBeLessThan(0.08);
  });

  it('keeps in step with a capture clock that runs fast, by shortening quiet stretches only', async () => {
    requireTool('opusenc');
    requireTool('opusdec');
    const { timeline, chunks, recorder } = recorderUnderTest({ chunkSeconds: 0 });
    // 200 ms of audio every 190 ms of wall time (5 % fast) for 20 s of wall time; tones at 2 s and 17 s.
    const origin = 1_700_000_000_000;
    const tones = [2, 17];
    const toneStarts: number[] = [];
    let previousTone = false;
    for (let step = 0; step * 0.19 < 20; step += 1) {
      const wall = step * 0.19;
      const tone = tones.some((at) => wall >= at - 1e-9 && wall < at + 0.6);
      if (tone && !previousTone) toneStarts.push(wall);
      previousTone = tone;
      const samples = chunkOf(tone);
      timeline.append(samples.length, origin + wall * 1000);
      recorder.write(samples);
    }
    await recorder.stop();
    const decoded = decode(Buffer.concat(chunks.map((chunk) => chunk.bytes)));
    expect(decoded.length / RATE).toBeCloseTo(20, 0);
    expect(toneStarts).toHaveLength(2);
    expect(Math.abs(onsetAfter(decoded, 0) - toneStarts[0]!)).toBeLessThan(0.08);
    // Unchecked, 5 % more samples would put it 0.85 s late.
    expect(Math.abs(onsetAfter(decoded, 3) - toneStarts[1]!)).toBeLessThan(0.08);
  });

  it('ends with an error on its final chunk when the encoder cannot run, and takes audio without throwing', async () => {
    const { timeline, chunks, recorder } = recorderUnderTest({
      encoderCommand: 'opusenc-that-does-not-exist',
    });
    for (let i = 0; i < 10; i += 1) {
      timeline.append(CHUNK, 1_700_000_000_000 + i * 200);
      recorder.write(chunkOf(true));
    }
    await recorder.stop();
    expect(chunks.at(-1)?.final).toBe(true);
    expect(chunks.at(-1)?.error).toMatch(/ENOENT|opusenc/);
  });
});
