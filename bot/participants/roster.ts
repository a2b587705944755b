import { PARTICIPANT_NAME_MAX_CHARS } from '../../shared/contract/events.js';
import type { PeopleSeen } from '../platforms/driver.js';
import { normalizeSpeakerName } from '../speakers/timeline.js';

export interface RosterChange {
  type: 'participant.joined' | 'participant.left';
  name: string;
  /** Wall clock (epoch ms): the look that first showed them, or the first look without them. */
  at: number;
}

export interface RosterOptions {
  /** A name missing from the page this long (and for at least two looks) has left: tiles re-render. */
  leaveHoldMs: number;
  /** At most this many names are followed at once: a larger crowd reports no further joins. */
  maxTracked: number;
}

/** Raw page names already cleaned: a look at a steady meeting then costs one map read per name. */
const cleaned = new Map<string, string | null>();
const CLEANED_KEPT = 5000;

/** The clean name a participant is reported under, or null for none (empty, "Unknown user"). */
export function participantName(raw: string): string | null {
  const known = cleaned.get(raw);
  if (known !== undefined) return known;
  const normalized = normalizeSpeakerName(raw);
  const name = normalized === null ? null : normalized.slice(0, PARTICIPANT_NAME_MAX_CHARS);
  if (cleaned.size >= CLEANED_KEPT) cleaned.clear();
  cleaned.set(raw, name);
  return name;
}

/**
 * The participants the bot has seen in the call, kept from look to look: a look reports only what
 * changed (someone new: joined; someone missing for the hold time: left), so a steady meeting of
 * any size reports nothing and costs one pass over the names it shows.
 */
export class Roster {
  /** Present names → since when they have been missing (null: seen on the last look). */
  private readonly present = new Map<string, { missingSince: number | null; missedLooks: number }>();
  private overflowed = false;

  constructor(
    private readonly options: RosterOptions,
    private readonly botName: () => string,
  ) {}

  /** One look at the page; returns the changes it shows, joins first, in page order. */
  look(seen: PeopleSeen | null, now: number): RosterChange[] {
    if (seen === null) return [];
    const changes: RosterChange[] = [];
    const self = participantName(this.botName())?.toLowerCase();
    const names = new Set<string>();
    for (const raw of seen.names) {
      const name = participantName(raw);
      if (name !== null && name.toLowerCase() !== self) names.add(name);
    }
    for (const name of names) {
      const entry = this.present.get(name);
      if (entry) {
        entry.missingSince = null;
        entry.missedLooks = 0;
        continue;
      }
      if (this.present.size >= this.options.maxTracked) {
        this.overflowed = true;
        continue;
      }
      this.present.set(name, { missingSince: null, missedLooks: 0 });
      changes.push({ type: 'participant.joined', name, at: now });
    }
    if (!seen.complete) return changes;
    for (const [name, entry] of this.present) {
      if (names.has(name)) continue;
      entry.missingSince ??= now;
      entry.missedLooks += 1;
      if (entry.missedLooks >= 2 && now - entry.missingSince >= this.options.leaveHoldMs) {
        this.present.delete(name);
        changes.push({ type: 'participant.left', name, at: entry.missingSince });
      }
    }
    return changes;
  }

  /** Whether someone was left out because maxTracked names were followed already. */
  get full(): boolean {
    return this.overflowed;
  }

  has(name: string): boolean {
    return this.present.has(name);
  }

  get size(): number {
    return this.present.size;
  }
}
