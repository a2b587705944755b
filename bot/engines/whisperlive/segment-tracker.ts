import type { EngineSegment } from '../engine.js';
import type { SegmentIds } from '../segment-ids.js';
import type { ServerSegment } from './whisperlive-protocol.js';

/**
 * WhisperLive re-sends its recent segments with every update: completed ones again and again, the
 * last one growing (and sometimes starting somewhere else) until it is completed. This turns that
 * into our segments: one id per segment start, emitted only when it changed, never after final.
 */
export class SegmentTracker {
  private readonly finalized = new Set<string>();
  private readonly finalIds = new Set<string>();
  private readonly idsByStart = new Map<string, string>();
  private readonly lastEmitted = new Map<string, EngineSegment>();
  /** The id of the segment still in progress, if one was shown. */
  private openId: string | null = null;

  constructor(
    private readonly ids: SegmentIds,
    /** Seconds on the engine clock where the server's zero is. */
    private readonly originSeconds: number,
  ) {}

  update(segments: readonly ServerSegment[], language: string | null): EngineSegment[] {
    const changed: EngineSegment[] = [];
    segments.forEach((segment, index) => {
      const completed = segment.completed ?? index < segments.length - 1;
      const key = segment.start.toFixed(2);
      if (this.finalized.has(key)) return;
      const text = segment.text.trim();
      if (!completed && text === '') return;
      const id = this.idFor(key, segment, completed);
      const next: EngineSegment = {
        id,
        start: round(this.originSeconds + segment.start),
        end: round(this.originSeconds + Math.max(segment.start, segment.end)),
        text,
        language,
        final: completed,
      };
      if (completed) {
        this.finalized.add(key);
        this.finalIds.add(id);
        if (this.openId === id) this.openId = null;
        // A completed segment that is empty and was never shown is nothing.
        if (text === '' && !this.lastEmitted.has(id)) return;
      }
      if (sameSegment(this.lastEmitted.get(id), next)) return;
      if (completed) this.lastEmitted.delete(id);
      else this.lastEmitted.set(id, next);
      changed.push(next);
    });
    return changed;
  }

  /** The server is gone: whatever was shown in progress stands as final. */
  finishAll(): EngineSegment[] {
    const remaining = [...this.lastEmitted.values()].map((segment) => ({ ...segment, final: true }));
    this.lastEmitted.clear();
    this.openId = null;
    return remaining;
  }

  private idFor(key: string, segment: ServerSegment, completed: boolean): string {
    const known = this.idsByStart.get(key);
    if (known && !this.finalIds.has(known)) return known;
    // The segment in progress moved its start, or was completed under a new start: same utterance.
    const open = this.openId ? this.lastEmitted.get(this.openId) : undefined;
    const continuesOpen =
      open !== undefined &&
      (!completed || open.start - this.originSeconds < Math.max(segment.end, segment.start));
    const id = continuesOpen ? this.openId! : this.ids.create();
    this.idsByStart.set(key, id);
    if (!completed) this.openId = id;
    return id;
  }
}

function sameSegment(a: EngineSegment | undefined, b: EngineSegment): boolean {
  return (
    a !== undefined &&
    a.text === b.text &&
    a.start === b.start &&
    a.end === b.end &&
    a.final === b.final &&
    a.language === b.language
  );
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
