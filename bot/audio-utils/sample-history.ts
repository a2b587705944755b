/** Recent audio addressed by absolute sample position, so utterances can be cut out after the fact. */
export class SampleHistory {
  private chunks: Int16Array[] = [];
  private startPosition = 0;
  private endPosition = 0;

  get start(): number {
    return this.startPosition;
  }

  get end(): number {
    return this.endPosition;
  }

  append(samples: Int16Array): void {
    if (samples.length === 0) return;
    // Copy: callers may reuse their buffers.
    this.chunks.push(samples.slice());
    this.endPosition += samples.length;
  }

  /** Samples in [from, to), clipped to what is still held. */
  slice(from: number, to: number): Int16Array {
    const begin = Math.max(from, this.startPosition);
    const finish = Math.min(to, this.endPosition);
    const out = new Int16Array(Math.max(0, finish - begin));
    let chunkStart = this.startPosition;
    for (const chunk of this.chunks) {
      const chunkEnd = chunkStart + chunk.length;
      if (chunkEnd > begin && chunkStart < finish) {
        const from = Math.max(begin, chunkStart) - chunkStart;
        const to = Math.min(finish, chunkEnd) - chunkStart;
        out.set(chunk.subarray(from, to), chunkStart + from - begin);
      }
      chunkStart = chunkEnd;
      if (chunkStart >= finish) break;
    }
    return out;
  }

  /** Forgets whole chunks that end at or before `position`. */
  dropBefore(position: number): void {
    while (this.chunks.length > 0 && this.startPosition + this.chunks[0]!.length <= position) {
      this.startPosition += this.chunks.shift()!.length;
    }
  }
}
