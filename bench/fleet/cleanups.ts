/**
 * What the fleet bench started, undone in reverse order at the end, on an error and on Ctrl-C
 * (a second Ctrl-C gives up waiting). Processes are ended by their own pid only.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export class Cleanups {
  private readonly steps: Array<{ name: string; run: () => Promise<unknown> | unknown }> = [];
  private running: Promise<void> | undefined;

  add(name: string, run: () => Promise<unknown> | unknown): void {
    this.steps.push({ name, run });
  }

  run(log: (line: string) => void): Promise<void> {
    this.running ??= (async () => {
      for (const step of this.steps.reverse()) {
        const begun = performance.now();
        try {
          await step.run();
        } catch (error) {
          log(`cleanup: ${step.name} failed: ${(error as Error).message}`);
        }
        const seconds = (performance.now() - begun) / 1000;
        if (seconds >= 2) log(`cleanup: ${step.name} took ${seconds.toFixed(1)} s`);
      }
    })();
    return this.running;
  }

  /** On SIGINT or SIGTERM: undo everything, then exit 130. */
  installSignalHandlers(log: (line: string) => void): void {
    let signalledAt = 0;
    const onSignal = (signal: string) => {
      // tsx's parent process relays the terminal's signal a moment after the terminal sent it: a
      // signal within a second of the first is that copy, not a second Ctrl-C.
      if (signalledAt > 0) {
        if (Date.now() - signalledAt < 1000) return;
        log(`${signal} again: exiting without waiting for the cleanup`);
        process.exit(130);
      }
      signalledAt = Date.now();
      log(`${signal}: stopping and removing what the bench started…`);
      void this.run(log).then(() => {
        log('cleaned up after the interruption');
        process.exit(130);
      });
    };
    process.on('SIGINT', () => onSignal('SIGINT'));
    process.on('SIGTERM', () => onSignal('SIGTERM'));
  }
}

/** SIGTERM, then SIGKILL after `graceMs` if it is still there; resolves once it has exited. */
export async function endProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
