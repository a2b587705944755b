/**
 * Which person a WebRTC audio source carries. A source's stretch of talk is named by the page
 * signals' clear verdict over it; a source whose stretches were always one person (at least
 * MIN_NAMINGS of them, that person every time but for a stray one) keeps that person as its name,
 * so it still names stretches when the page shows nothing. Sources that rotate between people
 * (Meet's audio slots) or mix them (Teams' main track) never get a name of their own.
 */
const MIN_NAMINGS = 3;
const MIN_SHARE = 0.9;

export class SourceNames {
  private readonly counts = new Map<string, Map<string, number>>();
  private readonly stretches = new Map<string, string | null>();

  /** The name a closed stretch of `source` got (null: the page had no clear verdict), kept for later segments. */
  learn(source: string, stretchStart: number, name: string | null): void {
    this.stretches.set(stretchKey(source, stretchStart), name);
    if (name === null) return;
    const names = this.counts.get(source) ?? new Map<string, number>();
    names.set(name, (names.get(name) ?? 0) + 1);
    this.counts.set(source, names);
  }

  /** What a closed stretch was named when it closed; undefined when it wasn't seen closing. */
  stretchName(source: string, stretchStart: number): string | null | undefined {
    return this.stretches.get(stretchKey(source, stretchStart));
  }

  /** The one person this source has always carried, or null. */
  personOf(source: string): string | null {
    const names = this.counts.get(source);
    if (!names) return null;
    let total = 0;
    let best: string | null = null;
    let bestCount = 0;
    for (const [name, count] of names) {
      total += count;
      if (count > bestCount) {
        bestCount = count;
        best = name;
      }
    }
    return bestCount >= MIN_NAMINGS && bestCount / total >= MIN_SHARE ? best : null;
  }

  /** Forgets stretches that ended before `horizon` (their names are no longer asked for). */
  forgetBefore(horizon: number): void {
    for (const key of this.stretches.keys()) {
      if (Number(key.slice(key.lastIndexOf('@') + 1)) < horizon) this.stretches.delete(key);
    }
  }
}

function stretchKey(source: string, start: number): string {
  return `${source}@${start}`;
}
