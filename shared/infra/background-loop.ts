/**
 * A loop that runs in the background until stopped: start() begins it (once), stop() asks it to end
 * and waits for the iteration in hand to finish. Subclasses check `running` between iterations.
 */
export abstract class BackgroundLoop {
  protected running = false;
  private loop: Promise<void> | undefined;

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.interrupt();
    await this.loop;
  }

  /** Wakes an iteration blocked on IO so stop() need not wait for it to time out. */
  protected interrupt(): void {}

  protected abstract run(): Promise<void>;
}

export interface PeriodicLoopOptions {
  intervalMs: number;
  /** One round of the work; the next waits for it to settle. */
  task: () => Promise<unknown>;
  /** Hears what a round threw (the loop goes on); must not throw itself. */
  onError: (error: unknown) => void;
  /** Also run a round as soon as started, rather than only after the first interval. */
  runAtStart?: boolean;
  /** Whether the wait for the next round keeps the process alive (default true). */
  holdsProcess?: boolean;
}

/**
 * Runs a task every interval until stopped, on the same beat as setInterval (rounds start at
 * whole intervals from start()), but never two rounds at once: a beat that comes while a round is
 * still running is skipped. stop() waits for the round in hand, so a shutdown can close what the
 * task uses right after.
 */
export class PeriodicLoop extends BackgroundLoop {
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: PeriodicLoopOptions) {
    super();
    if (!(options.intervalMs > 0)) throw new Error(`interval must be positive, got ${options.intervalMs}`);
  }

  protected override interrupt(): void {
    clearTimeout(this.timer);
    this.wake?.();
  }

  protected async run(): Promise<void> {
    const { intervalMs, runAtStart } = this.options;
    const origin = performance.now();
    if (runAtStart) await this.round();
    while (this.running) {
      // Beats missed while a round ran are dropped, not run back to back.
      await this.sleep(intervalMs - ((performance.now() - origin) % intervalMs));
      if (!this.running) return;
      await this.round();
    }
  }

  private async round(): Promise<void> {
    try {
      await this.options.task();
    } catch (error) {
      this.options.onError(error);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
      if (this.options.holdsProcess === false) this.timer.unref();
    });
  }
}
