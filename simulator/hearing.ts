import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { wavOf } from './wav.js';

const run = promisify(execFile);

/** The rate the meeting pages record the bot's microphone at (what the recognizer wants). */
export const MIC_SAMPLE_RATE = 16_000;
/** A sample louder than this (about −40 dBFS) counts as sound; the bot's muted synthetic mic is exact zeros. */
const AUDIBLE = 330;

/** What the meeting heard of the bot while its microphone was on, once per unmuted span. */
export interface HeardSnapshot {
  /** When the page started sending the bot's microphone (the bot unmuted). */
  openedAt: string;
  /** When the page stopped (the bot muted, left, or the page went away); null while open. */
  closedAt: string | null;
  /** The first and last audible samples, in wall time; null while silent. */
  firstAudibleAt: string | null;
  lastAudibleAt: string | null;
  /** Seconds of microphone audio received in the span. */
  audioSeconds: number;
  /** `listening` while open, then `recognizing`, then `recognized` (text set) or `failed`. */
  status: 'listening' | 'recognizing' | 'recognized' | 'failed';
  /** What the recognizer heard (lower case, no punctuation); null until recognized. */
  text: string | null;
  error: string | null;
}

interface Span {
  openedAt: Date;
  closedAt: Date | null;
  firstAudibleAt: Date | null;
  lastAudibleAt: Date | null;
  chunks: Int16Array[];
  samples: number;
  status: HeardSnapshot['status'];
  text: string | null;
  error: string | null;
}

export type Recognize = (wav: Buffer) => Promise<string>;

/**
 * The meeting's remote participants hearing the bot: the page records what the bot's microphone
 * track carries while it is unmuted and posts it here in order; each unmuted span is run through
 * the recognizer when it closes.
 */
export class BotHearing {
  private readonly spans: Span[] = [];

  constructor(private readonly recognize: Recognize = recognizeWithPocketsphinx) {}

  /** A chunk of the bot's microphone, `endAt` the page's wall time of its last sample. */
  audio(pcm: Int16Array, endAt: Date): void {
    let span = this.open();
    if (!span) {
      const startedAt = new Date(endAt.getTime() - (pcm.length / MIC_SAMPLE_RATE) * 1000);
      span = this.newSpan(startedAt);
    }
    const msPerSample = 1000 / MIC_SAMPLE_RATE;
    const startMs = endAt.getTime() - pcm.length * msPerSample;
    let first = -1;
    let last = -1;
    for (let i = 0; i < pcm.length; i++) {
      if (Math.abs(pcm[i] ?? 0) > AUDIBLE) {
        if (first < 0) first = i;
        last = i;
      }
    }
    if (first >= 0) {
      span.firstAudibleAt ??= new Date(startMs + first * msPerSample);
      span.lastAudibleAt = new Date(startMs + last * msPerSample);
    }
    span.chunks.push(pcm);
    span.samples += pcm.length;
  }

  /** The page stopped sending (muted): the span closes and goes to the recognizer. */
  close(at: Date): void {
    const span = this.open();
    if (!span) return;
    span.closedAt = at;
    if (span.firstAudibleAt === null) {
      span.status = 'recognized';
      span.text = '';
      return;
    }
    span.status = 'recognizing';
    const pcm = new Int16Array(span.samples);
    let offset = 0;
    for (const chunk of span.chunks) {
      pcm.set(chunk, offset);
      offset += chunk.length;
    }
    span.chunks = [];
    this.recognize(wavOf(pcm, MIC_SAMPLE_RATE)).then(
      (text) => {
        span.text = text;
        span.status = 'recognized';
      },
      (error: unknown) => {
        span.error = (error as Error).message;
        span.status = 'failed';
      },
    );
  }

  snapshot(): HeardSnapshot[] {
    return this.spans.map((span) => ({
      openedAt: span.openedAt.toISOString(),
      closedAt: span.closedAt?.toISOString() ?? null,
      firstAudibleAt: span.firstAudibleAt?.toISOString() ?? null,
      lastAudibleAt: span.lastAudibleAt?.toISOString() ?? null,
      audioSeconds: Math.round((span.samples / MIC_SAMPLE_RATE) * 100) / 100,
      status: span.status,
      text: span.text,
      error: span.error,
    }));
  }

  private open(): Span | undefined {
    const last = this.spans.at(-1);
    return last && last.closedAt === null ? last : undefined;
  }

  private newSpan(openedAt: Date): Span {
    const span: Span = {
      openedAt,
      closedAt: null,
      firstAudibleAt: null,
      lastAudibleAt: null,
      chunks: [],
      samples: 0,
      status: 'listening',
      text: null,
      error: null,
    };
    this.spans.push(span);
    return span;
  }
}

/** Debian's pocketsphinx (the bot's embedded recognizer) over a WAV file; its words, lower case. */
export async function recognizeWithPocketsphinx(wav: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'meetbot-sim-heard-'));
  try {
    const path = join(dir, 'heard.wav');
    await writeFile(path, wav);
    const { stdout } = await run('pocketsphinx_continuous', ['-infile', path, '-logfn', '/dev/null'], {
      timeout: 120_000,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT')
        throw new Error(
          'pocketsphinx_continuous is not installed (on Debian or Ubuntu: apt-get install pocketsphinx)',
        );
      throw error;
    });
    return stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .join(' ')
      .replace(/\(\d+\)/g, '')
      .toLowerCase();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
