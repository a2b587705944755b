/**
 * The heights of a virtual list's rows: measured ones as measured, the others estimated, with the
 * offsets of their tops computed lazily (one pass after a change, then binary searches).
 */
export class RowHeights {
  private heights: number[] = [];
  private offsets: number[] = [0];
  private dirtyFrom = 0;

  constructor(private readonly estimate: number) {}

  get count(): number {
    return this.heights.length;
  }

  /** Grows or shrinks to `count` rows; new rows take the estimate. */
  setCount(count: number): void {
    if (count === this.heights.length) return;
    if (count < this.heights.length) this.heights.length = count;
    else for (let i = this.heights.length; i < count; i += 1) this.heights.push(this.estimate);
    this.dirtyFrom = Math.min(this.dirtyFrom, count);
  }

  /** Records a measured height; true when it changed. */
  set(index: number, height: number): boolean {
    if (index < 0 || index >= this.heights.length || this.heights[index] === height) return false;
    this.heights[index] = height;
    this.dirtyFrom = Math.min(this.dirtyFrom, index);
    return true;
  }

  /** The top of row `index` (the total height for index = count). */
  offsetOf(index: number): number {
    this.settle();
    return this.offsets[Math.max(0, Math.min(index, this.heights.length))]!;
  }

  total(): number {
    return this.offsetOf(this.heights.length);
  }

  /** The row that covers `y` (the first row for y ≤ 0, the last for y past the end). */
  indexAt(y: number): number {
    this.settle();
    const count = this.heights.length;
    if (count === 0) return 0;
    let low = 0;
    let high = count - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.offsets[mid]! <= y) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  private settle(): void {
    const count = this.heights.length;
    if (this.dirtyFrom >= count && this.offsets.length === count + 1) return;
    this.offsets.length = count + 1;
    for (let i = Math.min(this.dirtyFrom, count); i < count; i += 1)
      this.offsets[i + 1] = this.offsets[i]! + this.heights[i]!;
    this.dirtyFrom = count;
  }
}
