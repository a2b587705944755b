/**
 * Audio the page's capture never heard. The capture's AudioContext renders on an audio clock; on a
 * host short of CPU that clock skips (measured: at half of real time with five bots on 2 cores,
 * docs/benchmarks.md), and what it skipped is gone before the bot or its engine could see it. The
 * capture timeline shows it as wall time without samples (`missingSeconds`). This watch turns that
 * into stretches a user can be told about: a stretch opens once the capture lost at least
 * `openSeconds` within `windowMs`, closes once it lost less than `closeSeconds` within the window,
 * and is reported when it closes (or every `reportEveryMs` while it lasts) if it lost at least
 * `reportSeconds` in all. The reported bounds are the wall-clock span in which the audio went
 * missing; the lost seconds are spread over it (a starved clock loses a little of every chunk).
 * A stretch still open when the capture ends is reported by `finish`, so a meeting that ends while
 * its bot is starved still says what it lost in its last minute.
 */
export interface CaptureLossThresholds {
  windowMs: number;
  openSeconds: number;
  closeSeconds: number;
  reportSeconds: number;
  reportEveryMs: number;
}

export const DEFAULT_CAPTURE_LOSS_THRESHOLDS: CaptureLossThresholds = {
  windowMs: 10_000,
  openSeconds: 1,
  closeSeconds: 0.2,
  reportSeconds: 3,
  reportEveryMs: 60_000,
};

export interface CaptureLossReport {
  /** Wall-clock bounds (ms) of the span the audio went missing in. */
  from: number;
  to: number;
  /** Seconds of audio lost within it. */
  lostSeconds: number;
}

interface Reading {
  at: number;
  missing: number;
}

export class CaptureLossWatch {
  private readings: Reading[] = [];
  /** The open stretch: where it began, the missing total then, and when it was last reported. */
  private stretch: { from: number; missingAtStart: number; reportedAt: number } | null = null;

  constructor(private readonly thresholds: CaptureLossThresholds = DEFAULT_CAPTURE_LOSS_THRESHOLDS) {}

  /**
   * Takes the capture's missing total (seconds, only ever growing in practice) at wall time `now`
   * (ms); returns a report when one is due.
   */
  observe(missingSeconds: number, now: number): CaptureLossReport | null {
    const { windowMs, openSeconds, closeSeconds, reportSeconds, reportEveryMs } = this.thresholds;
    this.readings.push({ at: now, missing: missingSeconds });
    while (this.readings.length > 1 && this.readings[1]!.at <= now - windowMs) this.readings.shift();
    const oldest = this.readings[0]!;
    const lostInWindow = missingSeconds - oldest.missing;
    const spansWindow = now - oldest.at >= windowMs * 0.9;

    if (!this.stretch) {
      if (lostInWindow >= openSeconds) {
        this.stretch = { from: oldest.at, missingAtStart: oldest.missing, reportedAt: oldest.at };
      }
      return null;
    }
    const lostSeconds = missingSeconds - this.stretch.missingAtStart;
    const closing = spansWindow && lostInWindow < closeSeconds;
    const due = closing || now - this.stretch.reportedAt >= reportEveryMs;
    if (!due) return null;
    const report = { from: this.stretch.from, to: now, lostSeconds };
    if (closing) this.stretch = null;
    else this.stretch = { from: now, missingAtStart: missingSeconds, reportedAt: now };
    return lostSeconds >= reportSeconds ? report : null;
  }

  /**
   * The capture ended (the bot left the call, or the meeting ended): the open stretch, up to the
   * capture's last reading, if it lost enough to be reported; the watch starts afresh after it.
   */
  finish(missingSeconds: number, now: number): CaptureLossReport | null {
    const stretch = this.stretch;
    this.stretch = null;
    this.readings = [];
    if (!stretch) return null;
    const lostSeconds = missingSeconds - stretch.missingAtStart;
    return lostSeconds >= this.thresholds.reportSeconds
      ? { from: stretch.from, to: Math.max(stretch.from, now), lostSeconds }
      : null;
  }
}
