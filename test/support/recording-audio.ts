import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RECORDING_TEST_RATE = 16_000;

/** Decodes an Ogg Opus file to 16 kHz mono samples with Debian's opusdec (pre-skip honoured). */
export function decodeOggOpus(bytes: Buffer): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), 'meetbot-opus-'));
  try {
    writeFileSync(join(dir, 'in.opus'), bytes);
    const result = spawnSync('opusdec', [
      '--quiet',
      '--rate',
      String(RECORDING_TEST_RATE),
      '--force-wav',
      join(dir, 'in.opus'),
      join(dir, 'out.wav'),
    ]);
    if (result.error) throw new Error(`opusdec is missing (Debian's opus-tools): ${result.error.message}`);
    if (result.status !== 0) throw new Error(`opusdec failed: ${result.stderr.toString()}`);
    const wav = readFileSync(join(dir, 'out.wav'));
    const pcm = wav.subarray(wav.indexOf('data') + 8);
    return new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + (pcm.length & ~1)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The first moment (seconds) at or after `from` where the audio turns loud: the first 10 ms window
 * whose RMS is over `rms` (330 ≈ −40 dBFS, the simulator's own speech threshold). NaN if none before `to`.
 */
export function onsetBetween(samples: Int16Array, from: number, to: number, rms = 330): number {
  const window = RECORDING_TEST_RATE / 100;
  const end = Math.min(samples.length, Math.round(to * RECORDING_TEST_RATE));
  for (
    let start = Math.max(0, Math.round(from * RECORDING_TEST_RATE));
    start + window <= end;
    start += window
  ) {
    let sum = 0;
    for (let i = start; i < start + window; i += 1) sum += (samples[i] ?? 0) ** 2;
    if (Math.sqrt(sum / window) > rms) return start / RECORDING_TEST_RATE;
  }
  return Number.NaN;
}
