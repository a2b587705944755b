import type { CompletedReason, FailedReason } from '../shared/contract/events.js';
import { waitAtMost } from '../shared/infra/async.js';

export type Outcome =
  | { status: 'completed'; reason: CompletedReason; detail?: string }
  | { status: 'failed'; reason: FailedReason; detail?: string };

/**
 * The first reason to stop wins (a leave command, SIGTERM, a refused navigation, an engine
 * failure); the session's loops check it between steps and sleep on it so they wake at once.
 */
export class EndSignal {
  private value: Outcome | null = null;
  private wake: (() => void) | null = null;
  private readonly ended: Promise<void>;

  constructor() {
    this.ended = new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  end(outcome: Outcome): void {
    if (this.value) return;
    this.value = outcome;
    this.wake?.();
  }

  get outcome(): Outcome | null {
    return this.value;
  }

  /** Sleeps up to `ms`, returning early when the session is asked to end. */
  sleep(ms: number): Promise<void> {
    return waitAtMost(this.ended, ms);
  }
}
