/**
 * Who spoke when according to one speaking signal, on the capture clock (seconds since the first
 * captured sample). A segment goes to the participant whose speaking time overlaps it most;
 * without any overlapping evidence it stays unattributed (null) rather than guessed.
 */
export interface SpeakingChange {
  name: string;
  speaking: boolean;
  /** Capture-clock seconds. */
  at: number;
}

export interface Interval {
  start: number;
  end: number;
}

/** A stretch of one name's speaking (an open one ends at the time asked about). */
export interface NamedInterval extends Interval {
  name: string;
  open: boolean;
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

  /** Takes a change; returns the stretch it closed, if it closed one. */
  record(change: SpeakingChange): NamedInterval | null {
    const name = normalizeSpeakerName(change.name);
    if (name === null) return null;
    this.latest = Math.max(this.latest, change.at);
    const openedAt = this.open.get(name);
    if (change.speaking) {
      if (openedAt === undefined) this.open.set(name, change.at);
      return null;
    }
    if (openedAt === undefined) return null;
    this.open.delete(name);
    if (change.at <= openedAt) return null;
    const list = this.closed.get(name) ?? [];
    list.push({ start: openedAt, end: change.at });
    this.closed.set(name, list);
    this.prune();
    return { name, start: openedAt, end: change.at, open: false };
  }

  /** The speaker with the largest overlap with [start, end], or null without evidence. */
  attribute(start: number, end: number, now = Math.max(this.latest, end)): string | null {
    return strongest(this.overlaps(start, end, now))?.name ?? null;
  }

  /**
   * Seconds of speaking within [start, end] widened by the tolerance, per name; only names with
   * some. `personOf` names each stretch (default: the name it was recorded under; null: skip it).
   */
  overlaps(
    start: number,
    end: number,
    now = Math.max(this.latest, end),
    personOf: (stretch: NamedInterval) => string | null = (stretch) => stretch.name,
  ): Map<string, number> {
    const from = start - this.tolerance;
    const to = Math.max(end, start) + this.tolerance;
    const totals = new Map<string, number>();
    for (const interval of this.intervals(from, to, now)) {
      const person = personOf(interval);
      if (person === null) continue;
      const overlap = Math.min(to, interval.end) - Math.max(from, interval.start);
      totals.set(person, (totals.get(person) ?? 0) + overlap);
    }
    return totals;
  }

  /** The speaking stretches that overlap [from, to], open ones running until `now`. */
  intervals(from: number, to: number, now = Math.max(this.latest, to)): NamedInterval[] {
    const found: NamedInterval[] = [];
    for (const [name, intervals] of this.closed) {
      for (const interval of intervals) {
        if (interval.end > from && interval.start < to) found.push({ name, ...interval, open: false });
      }
    }
    for (const [name, openedAt] of this.open) {
      const end = Math.max(now, openedAt);
      if (end > from && openedAt < to) found.push({ name, start: openedAt, end, open: true });
    }
    return found;
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

/** The name with the most seconds (more than none), or null. */
export function strongest(overlaps: Map<string, number>): { name: string; overlap: number } | null {
  let best: { name: string; overlap: number } | null = null;
  for (const [name, overlap] of overlaps) {
    if (overlap > 0 && (best === null || overlap > best.overlap)) best = { name, overlap };
  }
  return best;
}
