import type { LiveSegment } from '../api/types.js';

function before(a: LiveSegment, b: LiveSegment): boolean {
  if (a.start !== b.start) return a.start < b.start;
  return a.absolute_start_time < b.absolute_start_time;
}

/**
 * A meeting's transcript as the live stream builds it: segments ordered by `start` (then wall-clock
 * start, as the API orders them), a copy with a known segment_id replacing the earlier one in place,
 * and segments whose text is empty left out (a mutable segment may end empty).
 */
export class TranscriptModel {
  private readonly list: LiveSegment[] = [];
  private readonly byId = new Map<string, LiveSegment>();
  /** Bumped by every change: views re-render when it moves. */
  version = 0;

  get segments(): readonly LiveSegment[] {
    return this.list;
  }

  get size(): number {
    return this.list.length;
  }

  upsert(segment: LiveSegment): void {
    const previous = this.byId.get(segment.segment_id);
    const visible = segment.text.trim() !== '';
    if (previous) {
      const index = this.indexOf(previous);
      if (
        visible &&
        previous.start === segment.start &&
        previous.absolute_start_time === segment.absolute_start_time
      ) {
        this.list[index] = segment;
        this.byId.set(segment.segment_id, segment);
        this.version += 1;
        return;
      }
      this.list.splice(index, 1);
      this.byId.delete(segment.segment_id);
    }
    if (visible) {
      this.list.splice(this.insertionPoint(segment), 0, segment);
      this.byId.set(segment.segment_id, segment);
    }
    this.version += 1;
  }

  /** The index of the segment playing at transcript time `t`: the last one started by then, if it has not ended. */
  indexAt(t: number): number {
    let low = 0;
    let high = this.list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.list[mid]!.start <= t) low = mid + 1;
      else high = mid;
    }
    const index = low - 1;
    return index >= 0 && this.list[index]!.end >= t ? index : -1;
  }

  private insertionPoint(segment: LiveSegment): number {
    // Live segments mostly arrive last: check the end first.
    const last = this.list.at(-1);
    if (!last || !before(segment, last)) return this.list.length;
    let low = 0;
    let high = this.list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(segment, this.list[mid]!)) high = mid;
      else low = mid + 1;
    }
    return low;
  }

  private indexOf(segment: LiveSegment): number {
    let low = 0;
    let high = this.list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (before(this.list[mid]!, segment)) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < this.list.length; i += 1) if (this.list[i] === segment) return i;
    return this.list.indexOf(segment);
  }
}
