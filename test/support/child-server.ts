import { type ChildProcess, spawn } from 'node:child_process';

/** A server a test runs as a child process, which it can stop (even crash) and start again. */
export interface ChildServer {
  /** Spawns it and waits until `ready` says it answers; throws with its output if it exits or never does. */
  start(): Promise<void>;
  /** Stops it with a signal (SIGTERM, or SIGKILL for a crash) and waits for it to exit. */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** What it wrote to stdout and stderr, the last `keepOutput` characters. */
  output(): string;
}

export interface ChildServerOptions {
  /** The program's name in error messages. */
  name: string;
  command: string;
  args: string[];
  /** How much of its output to keep. */
  keepOutput: number;
  /** One readiness probe: true once it serves. */
  ready(): Promise<boolean>;
  /** What "never ready" means, for the error: e.g. `never answered`. */
  notReady: string;
  /** Added to the message when it exits during start-up, e.g. a hint to install it. */
  exitHint?: string;
}

export function childServer(options: ChildServerOptions): ChildServer {
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const start = async () => {
    const process_ = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const append = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-options.keepOutput);
    };
    process_.stdout?.on('data', append);
    process_.stderr?.on('data', append);
    process_.on('error', (error) => append(Buffer.from(`spawn failed: ${error.message}\n`)));
    exited = new Promise((resolve) => process_.on('exit', () => resolve()));
    child = process_;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (process_.exitCode !== null || process_.signalCode !== null)
        throw new Error(`${options.name} exited at start-up${options.exitHint ?? ''}:\n${output}`);
      if (await options.ready()) return;
      if (Date.now() > deadline) throw new Error(`${options.name} ${options.notReady}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const stop = async (signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM') => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
    child = undefined;
  };

  return { start, stop, output: () => output };
}
