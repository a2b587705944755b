/**
 * One streaming interface for every transcription engine. Audio goes in as 16 kHz mono signed
 * 16-bit samples in capture order; the engine's clock is the sample count (seconds = samples / 16000
 * since the first sample written), so segment times line up with the capture.
 */
export const SAMPLE_RATE = 16_000;

export interface EngineSegment {
  /** Stable per utterance: a mutable segment is re-emitted with the same id until `final`. */
  id: string;
  /** Seconds since the first sample written. */
  start: number;
  end: number;
  text: string;
  /** The language in force or detected; null when unknown. */
  language: string | null;
  final: boolean;
}

export interface EngineSettings {
  /** null: detect where the engine can. */
  language: string | null;
  task: 'transcribe' | 'translate';
}

export interface TranscriptionEngine {
  /** Starts the engine; rejects with a clear message if it can't run with these settings. */
  start(): Promise<void>;
  /** Appends audio. Never blocks; the engine buffers as it needs. */
  write(samples: Int16Array): void;
  /** New settings apply to the segments that start after this call. */
  reconfigure(settings: Partial<EngineSettings>): void;
  /** Ends the open utterance and resolves once its final segments have been emitted. */
  flush(): Promise<void>;
  /** Stops the engine and frees its resources (after flush, if the last words matter). */
  close(): Promise<void>;
  /**
   * Seconds of written audio not processed yet, where the engine can tell (a recognizer that falls
   * behind builds a backlog); engines that can't leave it out.
   */
  backlogSeconds?(): number;
  /**
   * Reports a stretch of dropped audio that is over (the engine has worked its backlog off and
   * would take audio again) now, instead of at the next write, so the report comes before the
   * bot says it caught up.
   */
  settleDroppedAudio?(): void;
}

export interface EngineCallbacks {
  onSegment(segment: EngineSegment): void;
  /** An error the engine can't recover from (the bot ends with reason engine_error). */
  onFatalError(error: Error): void;
  /**
   * Audio the engine threw away unheard because it fell too far behind (engine seconds, as segment
   * times): never silently, the bot reports it.
   */
  onAudioDropped?(start: number, end: number): void;
}
