import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SimulatorError } from './errors.js';
import type { Voice } from './schema.js';
import { parseWav } from './wav.js';

const run = promisify(execFile);

export interface SpeechClip {
  key: string;
  path: string;
  durationSeconds: number;
}

/**
 * Speaks texts with Debian's flite into WAV files, cached on disk by voice and text so a test
 * suite synthesizes each sentence once per machine.
 */
export class SpeechSynthesizer {
  private readonly pending = new Map<string, Promise<SpeechClip>>();

  /** `command` is the flite binary (a name on PATH or a path). */
  constructor(
    readonly cacheDir: string = join(tmpdir(), 'meetbot-simulator-speech'),
    private readonly command = 'flite',
  ) {}

  static keyFor(voice: Voice, text: string): string {
    return createHash('sha256').update(`flite\0${voice}\0${text}`).digest('hex').slice(0, 32);
  }

  pathFor(key: string): string {
    return join(this.cacheDir, `${key}.wav`);
  }

  synthesize(voice: Voice, text: string): Promise<SpeechClip> {
    const key = SpeechSynthesizer.keyFor(voice, text);
    let clip = this.pending.get(key);
    if (!clip) {
      clip = this.load(key, voice, text);
      // A failure must not be cached: flite may be installed later or the disk freed.
      clip.catch(() => this.pending.delete(key));
      this.pending.set(key, clip);
    }
    return clip;
  }

  private async load(key: string, voice: Voice, text: string): Promise<SpeechClip> {
    const path = this.pathFor(key);
    const cached = await readFile(path).catch(() => undefined);
    if (cached) return { key, path, durationSeconds: parseWav(cached).durationSeconds };
    await mkdir(this.cacheDir, { recursive: true });
    // Written aside then renamed, so a concurrent process never reads half a file.
    const partial = `${path}.${process.pid}.${Date.now()}.part`;
    try {
      await run(this.command, ['-voice', voice, '-t', text, '-o', partial], { timeout: 60_000 });
    } catch (error) {
      // The caller's script is fine; this machine lacks what speaks it: a 503 that says what to install.
      const reason =
        (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `${this.command} is not installed (on Debian or Ubuntu: apt-get install flite)`
          : (error as Error).message;
      throw new SimulatorError(503, `speech synthesis failed for voice ${voice}: ${reason}`);
    }
    await rename(partial, path);
    return { key, path, durationSeconds: parseWav(await readFile(path)).durationSeconds };
  }
}
