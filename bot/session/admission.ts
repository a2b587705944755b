import type { Screen } from '../platforms/driver.js';

/**
 * Turns a series of page observations into "admitted": the call must be seen on consecutive looks,
 * so one in-between render (a lobby screen half torn down) can't make the bot report `active`.
 */
export class AdmissionTracker {
  private streak = 0;

  constructor(private readonly required = 2) {}

  /** Feeds one observation; true once the bot is in the call. */
  observe(screen: Screen): boolean {
    this.streak = screen.kind === 'in_call' ? this.streak + 1 : 0;
    return this.streak >= this.required;
  }
}
