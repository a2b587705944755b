import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PocketsphinxOutputParser, type RecognizedUtterance } from './pocketsphinx-output.js';

const execFileAsync = promisify(execFile);

export interface PocketsphinxProcessOptions {
  binary: string;
  /** Arguments besides `-infile`, e.g. `-time yes` and search tuning. */
  args: readonly string[];
  /** Where the FIFO's private directory is made (the OS temp dir by default). */
  workDir?: string;
  /** How long the model may take to load before start() gives up. */
  startTimeoutMs: number;
  onUtterance(utterance: RecognizedUtterance): void;
  /** The process ended without finish() or kill() asking it to. */
  onUnexpectedExit(error: Error): void;
}

const OPEN_POLL_MS = 50;
const KILL_GRACE_MS = 2000;
const STDERR_LINES_KEPT = 15;

/**
 * One pocketsphinx_continuous reading raw s16le audio from a FIFO. Node's child stdio is a socket
 * pair, which pocketsphinx can't open as `-infile /dev/stdin`, hence the FIFO. The recognizer opens
 * its input only after loading the model, so the FIFO's first reader is also the readiness signal.
 */
export class PocketsphinxProcess {
  private readonly parser = new PocketsphinxOutputParser();
  private readonly stderrTail: string[] = [];
  private child: ChildProcess | null = null;
  private socket: Socket | null = null;
  private dir: string | null = null;
  private exited: Promise<void> = Promise.resolve();
  private hasExited = false;
  private stopping = false;

  private constructor(private readonly options: PocketsphinxProcessOptions) {}

  /** Resolves once the model is loaded and the recognizer is waiting for audio. */
  static async start(options: PocketsphinxProcessOptions): Promise<PocketsphinxProcess> {
    const recognizer = new PocketsphinxProcess(options);
    try {
      await recognizer.launch();
    } catch (error) {
      await recognizer.kill();
      throw error;
    }
    return recognizer;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /**
   * Bytes written but not yet taken by the recognizer beyond what its FIFO holds (up to 64 KiB, 2 s
   * of audio, which can't be seen from here): grows once the recognizer falls behind.
   */
  queuedBytes(): number {
    return this.socket && !this.socket.destroyed ? this.socket.writableLength : 0;
  }

  write(bytes: Uint8Array): void {
    if (!this.socket || this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.write(bytes);
  }

  /** Ends the input; resolves when the recognizer has printed its last utterance and exited. */
  async finish(): Promise<void> {
    this.stopping = true;
    this.socket?.end();
    await this.exited;
    await this.removeDir();
  }

  /** Stops at once; nothing is left behind (process, FIFO, directory). Safe to call twice. */
  async kill(): Promise<void> {
    this.stopping = true;
    this.socket?.destroy();
    const child = this.child;
    if (child && !this.hasExited) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
    }
    await this.removeDir();
  }

  private async launch(): Promise<void> {
    this.dir = await mkdtemp(join(this.options.workDir ?? tmpdir(), 'pocketsphinx-'));
    const fifo = join(this.dir, 'audio.s16le');
    await execFileAsync('mkfifo', ['-m', '600', fifo]);

    const child = spawn(this.options.binary, ['-infile', fifo, ...this.options.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    let spawnError: Error | null = null;
    this.exited = new Promise((resolve) => {
      child.once('error', (error) => {
        spawnError = error;
        this.hasExited = true;
        resolve();
      });
      child.once('close', (code, signal) => {
        this.hasExited = true;
        for (const utterance of this.parser.end()) this.options.onUtterance(utterance);
        if (!this.stopping) {
          this.options.onUnexpectedExit(
            new Error(`pocketsphinx exited (${signal ?? `code ${code}`}): ${this.lastErrors()}`),
          );
        }
        resolve();
      });
    });
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      for (const utterance of this.parser.push(chunk)) this.options.onUtterance(utterance);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => this.keepStderr(chunk));

    const fd = await this.openWhenReaderArrives(fifo, () => spawnError);
    const socket = new Socket({ fd, readable: false, writable: true });
    // EPIPE when the recognizer dies: its exit is reported through onUnexpectedExit instead.
    socket.on('error', () => {});
    this.socket = socket;
  }

  /**
   * Opening a FIFO for writing without O_NONBLOCK would block a libuv thread until a reader comes,
   * forever if the recognizer fails to load; polling with O_NONBLOCK (ENXIO until then) doesn't.
   */
  private async openWhenReaderArrives(fifo: string, spawnError: () => Error | null): Promise<number> {
    const deadline = Date.now() + this.options.startTimeoutMs;
    for (;;) {
      const error = spawnError();
      if (error) throw new Error(`cannot run ${this.options.binary}: ${error.message}`);
      if (this.hasExited) throw new Error(`pocketsphinx failed to start: ${this.lastErrors()}`);
      try {
        return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
      } catch (openError) {
        if ((openError as NodeJS.ErrnoException).code !== 'ENXIO') throw openError;
      }
      if (Date.now() > deadline) {
        throw new Error(`pocketsphinx did not load its model within ${this.options.startTimeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, OPEN_POLL_MS));
    }
  }

  private keepStderr(chunk: string): void {
    for (const line of chunk.split('\n')) {
      // The rest is the configuration table and INFO chatter.
      if (!/^(ERROR|FATAL|WARN)/.test(line)) continue;
      this.stderrTail.push(line.trim());
      if (this.stderrTail.length > STDERR_LINES_KEPT) this.stderrTail.shift();
    }
  }

  private lastErrors(): string {
    return this.stderrTail.length > 0 ? this.stderrTail.join(' | ') : 'no error output';
  }

  private async removeDir(): Promise<void> {
    const dir = this.dir;
    this.dir = null;
    if (dir) await rm(dir, { recursive: true, force: true });
  }
}
