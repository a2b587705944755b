import { rmsDbfs } from './pcm.js';

/**
 * A frame-energy voice activity detector: good enough to cut meeting audio into utterances for
 * engines that want whole utterances (the recognizer does the real work). The threshold follows
 * the noise floor so a noisy room doesn't read as one endless utterance.
 */
export interface EnergyVadOptions {
  sampleRate: number;
  frameMs: number;
  /** A frame quieter than this is never speech, whatever the noise floor. */
  minSpeechDb: number;
  /** How far above the noise floor a frame must be to count as speech. */
  marginDb: number;
  /** Consecutive loud frames that open an utterance (ignores clicks). */
  startFrames: number;
  /** Quiet time that closes an utterance (spans the pauses between words). */
  hangoverMs: number;
}

export const DEFAULT_VAD_OPTIONS: EnergyVadOptions = {
  sampleRate: 16_000,
  frameMs: 20,
  minSpeechDb: -45,
  marginDb: 12,
  startFrames: 3,
  hangoverMs: 600,
};

/** Sample positions count from the first sample pushed. */
export type VadEvent = { type: 'speechStart'; sample: number } | { type: 'speechEnd'; sample: number };

const FLOOR_OF_SILENCE_DB = -100;

export class EnergyVad {
  readonly options: EnergyVadOptions;
  private readonly frameSize: number;
  private readonly hangoverFrames: number;
  private pending = new Int16Array(0);
  private framesSeen = 0;
  private noiseFloorDb = FLOOR_OF_SILENCE_DB;
  private speaking = false;
  private loudRun = 0;
  private quietRun = 0;
  private lastLoudFrameEnd = 0;

  constructor(options: Partial<EnergyVadOptions> = {}) {
    this.options = { ...DEFAULT_VAD_OPTIONS, ...options };
    this.frameSize = Math.round((this.options.sampleRate * this.options.frameMs) / 1000);
    this.hangoverFrames = Math.ceil(this.options.hangoverMs / this.options.frameMs);
  }

  get inSpeech(): boolean {
    return this.speaking;
  }

  push(samples: Int16Array): VadEvent[] {
    const events: VadEvent[] = [];
    const buffer = new Int16Array(this.pending.length + samples.length);
    buffer.set(this.pending);
    buffer.set(samples, this.pending.length);
    let offset = 0;
    for (; offset + this.frameSize <= buffer.length; offset += this.frameSize) {
      const event = this.frame(rmsDbfs(buffer, offset, offset + this.frameSize));
      if (event) events.push(event);
    }
    this.pending = buffer.slice(offset);
    return events;
  }

  /** Closes an open utterance at the last loud frame (end of stream). */
  end(): VadEvent[] {
    if (!this.speaking) return [];
    this.speaking = false;
    this.loudRun = 0;
    this.quietRun = 0;
    return [{ type: 'speechEnd', sample: this.lastLoudFrameEnd }];
  }

  private frame(levelDb: number): VadEvent | null {
    const level = Math.max(levelDb, FLOOR_OF_SILENCE_DB);
    const frameStart = this.framesSeen * this.frameSize;
    this.framesSeen++;
    const threshold = Math.max(this.options.minSpeechDb, this.noiseFloorDb + this.options.marginDb);
    const loud = level >= threshold;
    if (loud) {
      this.loudRun++;
      this.quietRun = 0;
      this.lastLoudFrameEnd = frameStart + this.frameSize;
    } else {
      this.loudRun = 0;
      this.quietRun++;
    }
    // Falls fast (speech has pauses between words), rises over seconds: steady noise becomes the
    // floor even when it starts out louder than the threshold, while speech never does.
    const rate = level < this.noiseFloorDb ? 0.5 : 0.01;
    this.noiseFloorDb += (level - this.noiseFloorDb) * rate;
    if (!this.speaking && this.loudRun >= this.options.startFrames) {
      this.speaking = true;
      return { type: 'speechStart', sample: frameStart - (this.options.startFrames - 1) * this.frameSize };
    }
    if (this.speaking && this.quietRun >= this.hangoverFrames) {
      this.speaking = false;
      return { type: 'speechEnd', sample: this.lastLoudFrameEnd };
    }
    return null;
  }
}
