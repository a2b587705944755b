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
