import type { AutomaticLeaveConfig } from '../../shared/contract/bot-config.js';
import type { CompletedReason } from '../../shared/contract/events.js';

export type AutomaticLeaveReason = Extract<
  CompletedReason,
  'nobody_joined' | 'left_alone' | 'silence' | 'max_duration'
>;

/**
 * Decides when an admitted bot leaves on its own. Pure: the caller feeds it observations with a
 * clock (milliseconds) and asks `due(now)`, so the rules are testable without timers.
 */
export class LeaveTimers {
  private readonly admittedAt: number;
  private othersEverSeen = false;
  private aloneSince: number | null = null;
  private lastSpeechAt: number;

  constructor(
    private readonly config: AutomaticLeaveConfig,
    admittedAt: number,
  ) {
    this.admittedAt = admittedAt;
    this.lastSpeechAt = admittedAt;
  }

  /** How many people besides the bot the page shows; null when the page gave no count. */
  observeOthers(count: number | null, now: number): void {
    if (count === null) return;
    if (count > 0) {
      this.othersEverSeen = true;
      this.aloneSince = null;
    } else if (this.othersEverSeen && this.aloneSince === null) {
      this.aloneSince = now;
    }
  }

  observeSpeech(now: number): void {
    this.lastSpeechAt = Math.max(this.lastSpeechAt, now);
  }

  due(now: number): AutomaticLeaveReason | null {
    const { maxDurationSeconds, nobodyJoinedSeconds, aloneSeconds, silenceSeconds } = this.config;
    if (now - this.admittedAt >= maxDurationSeconds * 1000) return 'max_duration';
    if (!this.othersEverSeen && now - this.admittedAt >= nobodyJoinedSeconds * 1000) return 'nobody_joined';
    if (this.aloneSince !== null && now - this.aloneSince >= aloneSeconds * 1000) return 'left_alone';
    if (now - this.lastSpeechAt >= silenceSeconds * 1000) return 'silence';
    return null;
  }
}
