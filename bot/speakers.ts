/**
 * Who spoke when, from the page's speaking indicators, on the capture clock (seconds since the
 * first captured sample). A segment goes to the participant whose speaking time overlaps it most;
 * without any overlapping evidence it stays unattributed (null) rather than guessed.
 */
export interface SpeakingChange {
  name: string;
  speaking: boolean;
  /** Capture-clock seconds. */
  at: number;
}

interface Interval {
  start: number;
  end: number;
}

export interface SpeakerTimelineOptions {
  /** Indicators trail or lead the audio a little; a segment is widened by this much on each side. */
  toleranceSeconds?: number;
  /** Intervals that ended longer ago than this are forgotten (engines finalize well within it). */
  retentionSeconds?: number;
}

/** Guest/tenant markers the platforms append to display names. */
const NAME_SUFFIX = /\s*\((guest|unverified|external|you|host|organi[sz]er|presenting)\)\s*$/i;

export function normalizeSpeakerName(raw: string): string | null {
  let name = raw.replace(/\s+/g, ' ').trim();
  let previous = '';
  while (previous !== name) {
    previous = name;
    name = name.replace(NAME_SUFFIX, '').trim();
  }
  if (name === '' || /^unknown user$/i.test(name)) return null;
  return name;
}

export class SpeakerTimeline {
  private readonly closed = new Map<string, Interval[]>();
  private readonly open = new Map<string, number>();
  private readonly tolerance: number;
  private readonly retention: number;
  private latest = 0;

  constructor(options: SpeakerTimelineOptions = {}) {
    this.tolerance = options.toleranceSeconds ?? 0.3;
    this.retention = options.retentionSeconds ?? 600;
  }

  record(change: SpeakingChange): void {
    const name = normalizeSpeakerName(change.name);
    if (name === null) return;
    this.latest = Math.max(this.latest, change.at);
    const openedAt = this.open.get(name);
    if (change.speaking) {
      if (openedAt === undefined) this.open.set(name, change.at);
      return;
    }
    if (openedAt === undefined) return;
    this.open.delete(name);
    if (change.at > openedAt) {
      const list = this.closed.get(name) ?? [];
      list.push({ start: openedAt, end: change.at });
      this.closed.set(name, list);
    }
    this.prune();
  }

  /** The speaker with the largest overlap with [start, end], or null without evidence. */
  attribute(start: number, end: number, now = Math.max(this.latest, end)): string | null {
    const from = start - this.tolerance;
    const to = Math.max(end, start) + this.tolerance;
    let best: string | null = null;
    let bestOverlap = 0;
    const totals = new Map<string, number>();
    const consider = (name: string, interval: Interval) => {
      const overlap = Math.min(to, interval.end) - Math.max(from, interval.start);
      if (overlap <= 0) return;
      const total = (totals.get(name) ?? 0) + overlap;
      totals.set(name, total);
      if (total > bestOverlap) {
        bestOverlap = total;
        best = name;
      }
    };
    for (const [name, intervals] of this.closed) {
      for (const interval of intervals) consider(name, interval);
    }
    for (const [name, openedAt] of this.open)
      consider(name, { start: openedAt, end: Math.max(now, openedAt) });
    return best;
  }

  /** Names currently shown as speaking. */
  speakingNow(): string[] {
    return [...this.open.keys()];
  }

  private prune(): void {
    const horizon = this.latest - this.retention;
    for (const [name, intervals] of this.closed) {
      const kept = intervals.filter((interval) => interval.end >= horizon);
      if (kept.length === 0) this.closed.delete(name);
      else this.closed.set(name, kept);
    }
  }
}
