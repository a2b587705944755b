import type { Logger } from '../../shared/infra/logger.js';
import type { CaptureTimeline } from '../audio/capture-timeline.js';
import { isSpeech } from '../audio-utils/pcm.js';
import { OpusEncoder } from './opus-encoder.js';

export interface RecordingChunk {
  seq: number;
  bytes: Buffer;
  /** Seconds of audio given to the encoder so far (recording time). */
  endSeconds: number;
  final: boolean;
  error?: string;
}

export interface RecorderOptions {
  sampleRate: number;
  /** Where the captured audio's wall times come from (the transcript's clock). */
  timeline: CaptureTimeline;
  /** Receives the encoded stream in numbered chunks, the last one marked final. */
  onChunk: (chunk: RecordingChunk) => void;
  log: Logger;
  /** How often encoded bytes are sent on (a killed bot loses at most about this much). */
  chunkSeconds?: number;
  /** Encoder command (tests may point at a missing one). */
  encoderCommand?: string;
}

/** A stretch where capture delivered nothing is filled with silence when it is longer than this. */
const GAP_TOLERANCE_SECONDS = 0.1;
/**
 * A gap up to this long that shows up while someone speaks waits for the next quiet chunk: under
 * load the capture's wall-time readings jitter by a few hundred milliseconds, and silence put into
 * the middle of a word garbles it. A longer gap (a real stall) is filled at once.
 */
const SPEECH_GAP_DEFER_SECONDS = 0.5;
/**
 * A capture clock running fast puts more samples in the recording than time passed: once this far
 * ahead, quiet chunks are shortened until it is back in step (never a chunk with speech in it).
 */
const AHEAD_TOLERANCE_SECONDS = 0.05;

/** An encoder this far behind is stuck: the recording ends rather than eat the bot's memory. */
const MAX_ENCODER_BACKLOG_BYTES = 8 * 1024 * 1024;

/**
 * Records what the bot hears as one Ogg Opus stream sent on in chunks while the meeting runs.
 * Recording time runs with the capture's wall clock, not just its sample count: where the page
 * delivered less audio than time passed (a stalled capture), silence fills the gap (a short one
 * only at a quiet point, never inside speech), and where it
 * delivered more (a capture clock running fast), quiet stretches are shortened, so a segment's
 * `start` seeks the recording to the same moment however long the meeting.
 */
export class MeetingRecorder {
  private readonly encoder: OpusEncoder;
  private readonly chunkSeconds: number;
  private pending: Buffer[] = [];
  private seq = 0;
  private samplesWritten = 0;
  private lastFlushAt: number;
  private error: Error | null = null;
  private stopped = false;

  constructor(private readonly options: RecorderOptions) {
    this.chunkSeconds = options.chunkSeconds ?? 5;
    this.lastFlushAt = Date.now();
    this.encoder = new OpusEncoder(
      options.sampleRate,
      {
        onBytes: (bytes) => this.pending.push(bytes),
        onError: (error) => {
          if (this.error) return;
          this.error = error;
          options.log.error({ err: error }, 'the recording failed; transcription goes on');
        },
      },
      options.encoderCommand,
    );
  }

  /** Seconds of audio recorded so far. */
  recordedSeconds(): number {
    return this.samplesWritten / this.options.sampleRate;
  }

  /** Takes the chunk of captured audio that was just appended to the timeline. */
  write(captured: Int16Array): void {
    if (this.stopped || this.error) return;
    let samples = captured;
    const { timeline, sampleRate } = this.options;
    const startWall = timeline.startWall();
    const chunkWall = timeline.wallAt(timeline.capturedSeconds() - samples.length / sampleRate);
    if (startWall !== null && chunkWall !== null) {
      const dueSamples = Math.round(((chunkWall - startWall) / 1000) * sampleRate);
      const gap = dueSamples - this.samplesWritten;
      const deferred = gap <= SPEECH_GAP_DEFER_SECONDS * sampleRate && isSpeech(samples);
      if (gap > GAP_TOLERANCE_SECONDS * sampleRate && !deferred) {
        this.options.log.debug(
          { seconds: gap / sampleRate },
          'recording silence where capture delivered none',
        );
        this.encoder.write(new Int16Array(gap));
        this.samplesWritten += gap;
      } else if (-gap > AHEAD_TOLERANCE_SECONDS * sampleRate && !isSpeech(samples)) {
        samples = samples.subarray(Math.min(samples.length, -gap));
      }
    }
    this.encoder.write(samples);
    this.samplesWritten += samples.length;
    if (this.encoder.backlogBytes() > MAX_ENCODER_BACKLOG_BYTES) {
      this.error = new Error('the encoder stopped taking audio');
      this.options.log.error('the recording encoder is stuck; the recording ends here');
      this.encoder.kill();
      return;
    }
    if (Date.now() - this.lastFlushAt >= this.chunkSeconds * 1000) this.flush(false);
  }

  /** Ends the stream: waits for the encoder's last pages and sends them as the final chunk. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.encoder.end();
    this.flush(true);
  }

  private flush(final: boolean): void {
    this.lastFlushAt = Date.now();
    if (!final && this.pending.length === 0) return;
    const bytes = Buffer.concat(this.pending);
    this.pending = [];
    this.options.onChunk({
      seq: this.seq++,
      bytes,
      endSeconds: this.recordedSeconds(),
      final,
      ...(final && this.error && { error: this.error.message }),
    });
  }
}
