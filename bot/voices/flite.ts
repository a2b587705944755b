import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FLITE_VOICES } from '../../shared/contract/bot-config.js';
import { decodeWav } from '../audio-utils/wav.js';
import type { SpeechAudio, SpeechSynthesizer, VoiceRequest } from './voice.js';

const run = promisify(execFile);
const FLITE_TIMEOUT_MS = 30_000;

/**
 * Debian's flite in the bot image: offline, about 1 MB of program with its voices built in, and a
 * sentence synthesised in tens of milliseconds on one core (docs/benchmarks.md), which is what lets
 * the first words out quickly. English only; other languages are read with English sounds.
 */
export class FliteSynthesizer implements SpeechSynthesizer {
  readonly name = 'flite';

  constructor(
    private readonly defaultVoice: string,
    private readonly binary = 'flite',
  ) {}

  async synthesize(text: string, request: VoiceRequest): Promise<SpeechAudio> {
    const voice = (FLITE_VOICES as readonly string[]).includes(request.voice ?? '')
      ? (request.voice as string)
      : this.defaultVoice;
    // flite seeks back to write the WAV header's sizes, so it writes a file rather than a pipe.
    const dir = await mkdtemp(join(tmpdir(), 'meetbot-flite-'));
    try {
      const path = join(dir, 'speech.wav');
      await run(this.binary, ['-voice', voice, '-t', text, '-o', path], { timeout: FLITE_TIMEOUT_MS });
      const wav = decodeWav(await readFile(path));
      return { kind: 'pcm', sampleRate: wav.sampleRate, samples: wav.samples };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
