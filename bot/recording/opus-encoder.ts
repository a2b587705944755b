import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/**
 * Speech at 16 kHz mono: Opus in its wideband mode at 24 kbit/s VBR is close to transparent for
 * voices (libopus' own guidance puts wideband speech at 16–24 kbit/s), ≈ 180 KB a minute, and the
 * recognizer reads it back as well as the original. Ogg pages are flushed at least every 1 s so a
 * killed bot loses little.
 */
export const OPUS_BITRATE_KBPS = 24;
const MAX_PAGE_DELAY_MS = 1000;

export interface EncoderEvents {
  /** Encoded Ogg Opus bytes, in order; concatenated they are the file. */
  onBytes(bytes: Buffer): void;
  /** The encoder process failed (could not start, crashed or refused its input). */
  onError(error: Error): void;
}

/**
 * Debian's `opusenc` (opus-tools) as a child process: raw 16-bit little-endian PCM in on stdin,
 * an Ogg Opus stream out on stdout. It runs beside the bot at a few percent of one core; a crash
 * only ends the recording, never the bot.
 */
export class OpusEncoder {
  private readonly process: ChildProcessWithoutNullStreams;
  private readonly exited: Promise<void>;
  private failed = false;

  constructor(
    sampleRate: number,
    private readonly events: EncoderEvents,
    command = 'opusenc',
  ) {
    this.process = spawn(
      command,
      [
        '--quiet',
        '--raw',
        '--raw-bits',
        '16',
        '--raw-rate',
        String(sampleRate),
        '--raw-chan',
        '1',
        '--raw-endianness',
        '0',
        '--speech',
        '--bitrate',
        String(OPUS_BITRATE_KBPS),
        '--vbr',
        '--max-delay',
        String(MAX_PAGE_DELAY_MS),
        '-',
        '-',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    this.process.stderr.on('data', (data: Buffer) => {
      stderr = (stderr + data.toString()).slice(-2000);
    });
    this.process.stdout.on('data', (bytes: Buffer) => events.onBytes(bytes));
    this.process.stdin.on('error', (error) => this.fail(error));
    this.exited = new Promise((resolve) => {
      this.process.on('error', (error) => {
        this.fail(error);
        resolve();
      });
      this.process.on('close', (code, signal) => {
        if (code !== 0) this.fail(new Error(`opusenc exited with ${code ?? signal}: ${stderr.trim()}`));
        resolve();
      });
    });
  }

  /** PCM bytes waiting for the encoder (a stalled encoder makes this grow). */
  backlogBytes(): number {
    return this.process.stdin.writableLength;
  }

  write(samples: Int16Array): void {
    if (this.failed || this.process.stdin.destroyed) return;
    this.process.stdin.write(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
  }

  /** Ends the input and resolves once the encoder wrote its last page and exited. */
  async end(): Promise<void> {
    if (!this.process.stdin.destroyed) this.process.stdin.end();
    await this.exited;
  }

  kill(): void {
    this.process.kill('SIGKILL');
  }

  private fail(error: Error): void {
    if (this.failed) return;
    this.failed = true;
    this.events.onError(error);
  }
}
