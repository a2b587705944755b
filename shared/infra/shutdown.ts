import type { Logger } from './logger.js';

interface Step {
  name: string;
  run: () => Promise<unknown> | unknown;
}

/**
 * Ordered graceful shutdown: steps run one after another in the order registered (HTTP server,
 * workers, queues, database pool, Redis), with a force-quit timer in case one of them hangs.
 */
export class Shutdown {
  private readonly steps: Step[] = [];
  private started: Promise<void> | undefined;

  constructor(
    private readonly log: Logger,
    private readonly timeoutMs: number,
  ) {}

  add(name: string, run: Step['run']): this {
    this.steps.push({ name, run });
    return this;
  }

  /** Calls `run` on SIGINT/SIGTERM, then exits. */
  installSignalHandlers(exit: (code: number) => void = (code) => process.exit(code)): void {
    const onSignal = (signal: NodeJS.Signals) => {
      this.log.info({ signal }, 'shutting down');
      void this.run().then(
        () => exit(0),
        () => exit(1),
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
  }

  run(): Promise<void> {
    this.started ??= this.runSteps();
    return this.started;
  }

  private async runSteps(): Promise<void> {
    const forceQuit = setTimeout(() => {
      this.log.error({ timeoutMs: this.timeoutMs }, 'shutdown timed out; forcing exit');
      process.exit(1);
    }, this.timeoutMs);
    forceQuit.unref();
    let failed = false;
    for (const step of this.steps) {
      try {
        await step.run();
        this.log.debug({ step: step.name }, 'shutdown step done');
      } catch (error) {
        failed = true;
        this.log.error({ err: error, step: step.name }, 'shutdown step failed');
      }
    }
    clearTimeout(forceQuit);
    if (failed) throw new Error('shutdown finished with errors');
  }
}
