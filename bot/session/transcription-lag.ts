/**
 * How far the transcription is behind the meeting, and when that is worth saying. The lag is what
 * a listener would wait on: audio the page heard but has not handed over yet (its chunks arrive
 * late when the browser or Node is starved) plus audio handed to the engine that it has not
 * worked through yet (its backlog). A bot reports `lagging` once the lag reaches `reportSeconds`
 * and `caught_up` once it is back under `recoveredSeconds`, so a lag hovering at the threshold
 * doesn't flap.
 */
export interface LagThresholds {
  reportSeconds: number;
  recoveredSeconds: number;
}

export const DEFAULT_LAG_THRESHOLDS: LagThresholds = { reportSeconds: 10, recoveredSeconds: 3 };

export interface LagInputs {
  /** Wall time (ms) just after the newest audio the page delivered; null before any audio. */
  heardUntil: number | null;
  /** Seconds of delivered audio the engine has not processed yet. */
  engineBacklogSeconds: number;
  now: number;
}

export type LagTransition = { kind: 'lagging' | 'caught_up'; lagSeconds: number };

/** The lag's two parts (seconds): audio not handed over by the page yet, and the engine's backlog. */
export interface LagParts {
  undeliveredSeconds: number;
  engineBacklogSeconds: number;
}

export function lagParts({ heardUntil, engineBacklogSeconds, now }: LagInputs): LagParts {
  return {
    undeliveredSeconds: heardUntil === null ? 0 : Math.max(0, (now - heardUntil) / 1000),
    engineBacklogSeconds: Math.max(0, engineBacklogSeconds),
  };
}

export class LagMonitor {
  private lagging = false;
  private latest = 0;
  private worst = 0;

  constructor(private readonly thresholds: LagThresholds = DEFAULT_LAG_THRESHOLDS) {
    if (thresholds.recoveredSeconds > thresholds.reportSeconds) {
      throw new Error('the recovered threshold must not be above the reporting one');
    }
  }

  /** Takes a new reading; returns the transition it causes, if any. */
  observe(lagSeconds: number): LagTransition | null {
    this.latest = lagSeconds;
    if (this.lagging) this.worst = Math.max(this.worst, lagSeconds);
    if (!this.lagging && lagSeconds >= this.thresholds.reportSeconds) {
      this.lagging = true;
      this.worst = lagSeconds;
      return { kind: 'lagging', lagSeconds };
    }
    if (this.lagging && lagSeconds <= this.thresholds.recoveredSeconds) {
      this.lagging = false;
      return { kind: 'caught_up', lagSeconds };
    }
    return null;
  }

  get isLagging(): boolean {
    return this.lagging;
  }

  /** The last reading (seconds). */
  get lagSeconds(): number {
    return this.latest;
  }

  /** The worst reading since the bot last started lagging. */
  get worstSeconds(): number {
    return this.worst;
  }
}
