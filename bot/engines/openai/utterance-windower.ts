import { EnergyVad, type EnergyVadOptions, type VadEvent } from '../../audio-utils/energy-vad.js';
import { SampleHistory } from '../../audio-utils/sample-history.js';

/**
 * Turns a stream of audio into what a request/response recognizer needs: the audio of the open
 * utterance so far every `windowSeconds` (to show words while someone is still talking) and the
 * whole utterance once it ends.
 */
export interface WindowerOptions {
  sampleRate: number;
  windowSeconds: number;
  /** Audio kept before the detected start: the VAD needs a few frames to be sure. */
  preRollSeconds: number;
  /** Audio kept after the detected end, for trailing consonants. */
  postRollSeconds: number;
  /** A monologue is cut into utterances this long so requests stay bounded. */
  maxUtteranceSeconds: number;
  vad?: Partial<EnergyVadOptions>;
}

export const DEFAULT_WINDOWER_OPTIONS: Omit<WindowerOptions, 'windowSeconds'> = {
  sampleRate: 16_000,
  preRollSeconds: 0.25,
  postRollSeconds: 0.2,
  maxUtteranceSeconds: 30,
};

export type WindowEvent =
  /** An utterance began (settings in force now apply to it). */
  | { kind: 'open'; utterance: number; startSample: number }
  | {
      kind: 'partial' | 'final';
      utterance: number;
      startSample: number;
      endSample: number;
      samples: Int16Array;
    };

interface OpenUtterance {
  index: number;
  start: number;
  nextWindowAt: number;
}

export class UtteranceWindower {
  private readonly options: WindowerOptions;
  private readonly vad: EnergyVad;
  private readonly history = new SampleHistory();
  private open: OpenUtterance | null = null;
  private nextIndex = 0;

  constructor(options: Partial<WindowerOptions> & { windowSeconds: number }) {
    this.options = { ...DEFAULT_WINDOWER_OPTIONS, ...options };
    this.vad = new EnergyVad({ ...this.options.vad, sampleRate: this.options.sampleRate });
  }

  push(samples: Int16Array): WindowEvent[] {
    this.history.append(samples);
    const events: WindowEvent[] = [];
    for (const vadEvent of this.vad.push(samples)) this.apply(vadEvent, events);
    const open = this.open;
    if (open) {
      const end = this.history.end;
      if (end - open.start >= this.seconds(this.options.maxUtteranceSeconds)) {
        // Still talking: close this part and carry on in a new utterance from here.
        events.push(this.closeAt(end));
        this.openAt(end, events);
      } else if (end >= open.nextWindowAt) {
        events.push(this.cut('partial', open, end));
        open.nextWindowAt = end + this.seconds(this.options.windowSeconds);
      }
    }
    this.forget();
    return events;
  }

  /** End of the stream (or a flush): the open utterance is final as it stands. */
  end(): WindowEvent[] {
    const events: WindowEvent[] = [];
    for (const vadEvent of this.vad.end()) this.apply(vadEvent, events);
    this.forget();
    return events;
  }

  private apply(event: VadEvent, events: WindowEvent[]): void {
    if (event.type === 'speechStart') {
      if (!this.open)
        this.openAt(
          Math.max(this.history.start, event.sample - this.seconds(this.options.preRollSeconds)),
          events,
        );
      return;
    }
    if (this.open)
      events.push(
        this.closeAt(Math.min(this.history.end, event.sample + this.seconds(this.options.postRollSeconds))),
      );
  }

  private openAt(start: number, events: WindowEvent[]): void {
    this.open = {
      index: this.nextIndex++,
      start,
      nextWindowAt: start + this.seconds(this.options.windowSeconds),
    };
    events.push({ kind: 'open', utterance: this.open.index, startSample: start });
  }

  private closeAt(end: number): WindowEvent {
    const open = this.open!;
    this.open = null;
    return this.cut('final', open, end);
  }

  private cut(kind: 'partial' | 'final', open: OpenUtterance, end: number): WindowEvent {
    return {
      kind,
      utterance: open.index,
      startSample: open.start,
      endSample: end,
      samples: this.history.slice(open.start, end),
    };
  }

  /** Keeps the open utterance, or enough for the next one's pre-roll. */
  private forget(): void {
    const keepFrom = this.open
      ? this.open.start
      : this.history.end - this.seconds(this.options.preRollSeconds + 1);
    this.history.dropBefore(keepFrom);
  }

  private seconds(value: number): number {
    return Math.round(value * this.options.sampleRate);
  }
}
