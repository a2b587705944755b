/**
 * Where the captured audio sits in wall-clock time. Every chunk the page delivers comes with the
 * wall time of its first sample, read from the capture AudioContext's own clock mapping when the
 * chunk was rendered (see capture-page-script.ts). A position in the audio maps through the last
 * chunk that starts at or before it, so a capture clock that runs slow, skips frames under load or
 * stalls costs at most the error inside one chunk, never an error that grows with the meeting the
 * way counting samples from one start instant does.
 */
export const TIMELINE_SAMPLE_RATE = 16_000;

/** Anchors kept: one per 200 ms chunk, so about 5.5 hours, ~1.6 MB. Older positions extrapolate. */
const MAX_ANCHORS = 100_000;

export class CaptureTimeline {
  /** Sample position of each chunk's first sample, counted from the first captured sample. */
  private positions: number[] = [];
  /** Wall time (ms since the epoch) of each chunk's first sample. */
  private walls: number[] = [];
  private samples = 0;
  private firstWall: number | null = null;
  /** Seconds of the captured audio that are silence put in for audio nobody delivered. */
  private unheard = 0;

  constructor(private readonly sampleRate = TIMELINE_SAMPLE_RATE) {}

  /**
   * Records a chunk of `length` samples whose first sample was heard at `wallMs`. Readings jitter a
   * little; they are taken as they are, except that a chunk never starts before the previous one.
   */
  append(length: number, wallMs: number): void {
    if (length <= 0 || !Number.isFinite(wallMs)) return;
    const wall = Math.max(wallMs, this.walls.at(-1) ?? Number.NEGATIVE_INFINITY);
    this.firstWall ??= wall;
    this.positions.push(this.samples);
    this.walls.push(wall);
    this.samples += length;
    if (this.positions.length > MAX_ANCHORS) {
      const drop = this.positions.length - MAX_ANCHORS / 2;
      this.positions.splice(0, drop);
      this.walls.splice(0, drop);
    }
  }

  /** Wall time (ms) of the position `seconds` into the capture; null before any audio. */
  wallAt(seconds: number): number | null {
    if (this.positions.length === 0) return null;
    const position = seconds * this.sampleRate;
    const index = this.anchorIndex(position);
    return this.walls[index]! + this.msFor(position - this.positions[index]!);
  }

  /**
   * The newest chunk: where it starts in the capture (seconds) and the wall time (ms) of its first
   * sample, read off its own anchor (not through a position in seconds, which rounding could put
   * just before it); null before any audio.
   */
  lastChunk(): { startSeconds: number; startWall: number } | null {
    const index = this.positions.length - 1;
    if (index < 0) return null;
    return { startSeconds: this.positions[index]! / this.sampleRate, startWall: this.walls[index]! };
  }

  /** Wall time (ms) of the first captured sample; null before any audio. */
  startWall(): number | null {
    return this.firstWall;
  }

  /** Seconds of audio captured so far. */
  capturedSeconds(): number {
    return this.samples / this.sampleRate;
  }

  /** Wall time (ms) just after the newest captured sample; null before any audio. */
  endWall(): number | null {
    return this.wallAt(this.capturedSeconds());
  }

  /** Notes that `seconds` of the chunk just appended are silence in place of audio never delivered. */
  noteUnheard(seconds: number): void {
    this.unheard += seconds;
  }

  /**
   * How much of the wall time since the first sample has no audio, in seconds: frames the capture
   * clock lost or skipped (positive when it ran slow), and silence put in for audio no track gave.
   */
  missingSeconds(): number {
    const end = this.endWall();
    if (end === null || this.firstWall === null) return 0;
    return (end - this.firstWall) / 1000 - this.capturedSeconds() + this.unheard;
  }

  private msFor(samples: number): number {
    return (samples / this.sampleRate) * 1000;
  }

  /** The last anchor at or before `position` (the first one for positions before it). */
  private anchorIndex(position: number): number {
    let low = 0;
    let high = this.positions.length - 1;
    if (position <= this.positions[0]!) return 0;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.positions[middle]! <= position) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
