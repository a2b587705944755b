import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const SPEECH_SAMPLE_RATE = 16_000;

/** flite's built-in voices: different speakers, so tests don't tune to one voice. */
export type FliteVoice = 'slt' | 'rms' | 'awb' | 'kal16';

const CACHE_DIR = join(tmpdir(), 'meetbot-test-speech');

/**
 * Speech for `text` as 16 kHz mono s16 samples: flite renders it, sox converts it. Cached on disk
 * by voice and text, as synthesis costs CPU the tests would rather give the recognizer.
 */
/** sox arguments turning any audio file into 16 kHz mono s16le raw samples (`-` writes to stdout). */
export function soxTo16kRaw(input: string, output: string): string[] {
  return [
    input,
    '-t',
    'raw',
    '-r',
    String(SPEECH_SAMPLE_RATE),
    '-c',
    '1',
    '-b',
    '16',
    '-e',
    'signed-integer',
    '-L',
    output,
  ];
}

export async function synthesize(text: string, voice: FliteVoice = 'slt'): Promise<Int16Array> {
  const key = createHash('sha256').update(`${voice}\n${text}`).digest('hex').slice(0, 24);
  const rawPath = join(CACHE_DIR, `${key}.s16le`);
  if (!(await exists(rawPath))) {
    await mkdir(CACHE_DIR, { recursive: true });
    const unique = `${key}-${process.pid}-${Math.random().toString(36).slice(2)}`;
    const wavPath = join(CACHE_DIR, `${unique}.wav`);
    const partialRaw = join(CACHE_DIR, `${unique}.s16le`);
    try {
      await execFileAsync('flite', ['-voice', voice, '-t', text, '-o', wavPath]);
      await execFileAsync('sox', soxTo16kRaw(wavPath, partialRaw));
      await rename(partialRaw, rawPath);
    } finally {
      await rm(wavPath, { force: true });
      await rm(partialRaw, { force: true });
    }
  }
  const bytes = await readFile(rawPath);
  const samples = new Int16Array(bytes.length / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
  return samples;
}

export function silence(seconds: number): Int16Array {
  return new Int16Array(Math.round(seconds * SPEECH_SAMPLE_RATE));
}

export type TimelinePart = { silence: number } | { say: string; voice?: FliteVoice };

export interface PlacedUtterance {
  text: string;
  voice: FliteVoice;
  /** Seconds from the timeline's start to the first and last audible sample of the speech. */
  start: number;
  end: number;
}

export interface Timeline {
  samples: Int16Array;
  utterances: PlacedUtterance[];
  /** The whole script, for word error rates. */
  script: string;
  duration: number;
}

/** Lays utterances and silences end to end as one capture would hear them. */
export async function buildTimeline(parts: readonly TimelinePart[]): Promise<Timeline> {
  const pieces: Int16Array[] = [];
  const utterances: PlacedUtterance[] = [];
  let position = 0;
  for (const part of parts) {
    if ('silence' in part) {
      const gap = silence(part.silence);
      pieces.push(gap);
      position += gap.length;
      continue;
    }
    const voice = part.voice ?? 'slt';
    const speech = await synthesize(part.say, voice);
    const [first, last] = audibleBounds(speech);
    utterances.push({
      text: part.say,
      voice,
      start: (position + first) / SPEECH_SAMPLE_RATE,
      end: (position + last) / SPEECH_SAMPLE_RATE,
    });
    pieces.push(speech);
    position += speech.length;
  }
  const samples = new Int16Array(position);
  let offset = 0;
  for (const piece of pieces) {
    samples.set(piece, offset);
    offset += piece.length;
  }
  return {
    samples,
    utterances,
    script: utterances.map((utterance) => utterance.text).join(' '),
    duration: position / SPEECH_SAMPLE_RATE,
  };
}

/** Splits audio into capture-sized chunks (the bot receives ~100 ms at a time). */
export function chunked(samples: Int16Array, chunkSeconds = 0.1): Int16Array[] {
  const size = Math.round(chunkSeconds * SPEECH_SAMPLE_RATE);
  const chunks: Int16Array[] = [];
  for (let offset = 0; offset < samples.length; offset += size)
    chunks.push(samples.subarray(offset, offset + size));
  return chunks;
}

/** First and last sample louder than about -50 dBFS: flite pads its output with near-silence. */
function audibleBounds(samples: Int16Array): [number, number] {
  const threshold = 100;
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]!) < threshold) first++;
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]!) < threshold) last--;
  return [first, last + 1];
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}
