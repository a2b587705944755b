import type { Logger } from '../../shared/infra/logger.js';
import type { AudioOut } from '../audio/audio-out.js';
import { CAPTURE_SAMPLE_RATE } from '../audio/capture-page-script.js';
import { isSpeech } from '../audio-utils/pcm.js';
import type { TranscriptionEngine } from '../engines/engine.js';
import type { MeetingPage } from '../meeting-page.js';
import type { EventSink } from '../outbox.js';
import { MeetingRecorder, type RecordingChunk } from '../recording/meeting-recorder.js';
import type { SpeakerAttribution } from '../speakers/attribution.js';
import { withLimit } from './time-limit.js';
import type { TranscriptPublisher } from './transcript-publisher.js';

const FINISH_LIMIT_MS = 20_000;

export interface CapturedAudioDeps {
  /** Whether the meeting is recorded (the config's `recording.enabled`). */
  recording: boolean;
  outbox: Pick<EventSink, 'recordingChunk'>;
  /** Where each captured chunk goes for the audio WebSocket (bot/audio/audio-out.ts); absent: nowhere. */
  audioOut?: AudioOut | undefined;
  publisher: TranscriptPublisher;
  speakers: SpeakerAttribution;
  engine(): TranscriptionEngine | null;
  /** Speech was heard (the leave timers' silence clock). */
  onSpeech(at: number): void;
  log: Logger;
}

/**
 * Where the page's captured audio goes, from the start of the capture: the recognizer, the
 * recording (its chunks published as they are encoded) and the audio socket.
 */
export class CapturedAudio {
  private started = false;
  private recorder: MeetingRecorder | null = null;

  constructor(private readonly deps: CapturedAudioDeps) {}

  /** Starts the page's capture, once (a later call does nothing). */
  async start(page: MeetingPage | null): Promise<void> {
    if (this.started || !page) return;
    this.started = true;
    if (this.deps.recording) {
      this.recorder = new MeetingRecorder({
        sampleRate: CAPTURE_SAMPLE_RATE,
        timeline: page.timeline,
        onChunk: (chunk) => this.sendRecordingChunk(chunk),
        log: this.deps.log.child({ component: 'recorder' }),
      });
    }
    await page.startCapture((samples) => {
      this.deps.engine()?.write(samples);
      this.recorder?.write(samples);
      if (isSpeech(samples)) this.deps.onSpeech(Date.now());
      this.publishAudio(page, samples);
    });
  }

  /** The capture is over: the recording's last chunks go out (given FINISH_LIMIT_MS). */
  async finishRecording(): Promise<void> {
    if (!this.recorder) return;
    const { log } = this.deps;
    await withLimit(this.recorder.stop(), FINISH_LIMIT_MS, 'finishing the recording', log).catch(
      (error: unknown) => log.warn({ err: error }, 'finishing the recording failed'),
    );
  }

  /**
   * The chunk just captured, for the audio WebSocket: its place on the transcript's time line, its
   * wall-clock times and who the speaker attribution names over it so far.
   */
  private publishAudio(page: MeetingPage, samples: Int16Array): void {
    const out = this.deps.audioOut;
    if (!out) return;
    const capturedAtMs = Date.now();
    const chunk = page.timeline.lastChunk();
    const seconds = samples.length / CAPTURE_SAMPLE_RATE;
    const start = chunk?.startSeconds ?? 0;
    const end = start + seconds;
    const startWallMs = chunk?.startWall ?? capturedAtMs - seconds * 1000;
    const startSeconds = this.deps.publisher.transcriptSeconds(startWallMs);
    out.publish(
      {
        start: startSeconds,
        end: Math.round((startSeconds + seconds) * 1000) / 1000,
        startWallMs: Math.round(startWallMs),
        capturedAtMs,
        speaker: this.deps.speakers.attribute(start, end),
      },
      samples,
    );
  }

  private sendRecordingChunk(chunk: RecordingChunk): void {
    void this.deps.outbox.recordingChunk({
      seq: chunk.seq,
      data: chunk.bytes.toString('base64'),
      endSeconds: chunk.endSeconds,
      startSeconds: this.deps.publisher.captureStartSeconds(),
      final: chunk.final,
      ...(chunk.error !== undefined && { error: chunk.error }),
    });
  }
}
