import type { BrowserContext, Page } from 'playwright-core';
import { PeriodicLoop } from '../../shared/infra/background-loop.js';
import type { AudioCaptureMode } from '../../shared/contract/bot-config.js';
import type { Logger } from '../../shared/infra/logger.js';
import {
  AUDIO_BINDING,
  CAPTURE_GLOBAL,
  CAPTURE_INIT_SCRIPT,
  CAPTURE_SAMPLE_RATE,
} from './capture-page-script.js';
import { CaptureTimeline } from './capture-timeline.js';

export type AudioSink = (samples: Int16Array) => void;

export interface CaptureStats {
  mode: string | null;
  tracks: number;
  state: string | null;
  /** What received audio currently waits in WebRTC's jitter buffer (ms); subtracted from its times. */
  receiveDelayMs: number;
  /** Played out by the receivers less rendered by the capture since both were seen (ms). */
  playoutBacklogMs: number;
  /** Seconds the capture AudioContext has rendered (its clock). */
  renderedSeconds: number;
}

/**
 * The Node half of the page's audio capture: installs the page script, receives its base64 Int16
 * chunks and passes them on as samples. The capture clock is the sample count (what engines and
 * speaking indicators count in); the timeline maps it to wall time chunk by chunk, from the wall
 * time the page read off its audio clock for each chunk.
 */
export class AudioCapture {
  readonly timeline = new CaptureTimeline(CAPTURE_SAMPLE_RATE);
  private sink: AudioSink | null = null;
  private firstChunkAt: number | null = null;
  private lastChunkAt = 0;
  private clockLog: PeriodicLoop | null = null;

  constructor(private readonly log: Logger) {}

  /** Must run before the meeting page loads, so the page's peer connections are hooked. */
  async install(context: BrowserContext): Promise<void> {
    await context.exposeBinding(
      AUDIO_BINDING,
      (_source, base64: unknown, wall: unknown, unheard: unknown) => {
        if (typeof base64 !== 'string') return;
        const unheardSeconds = typeof unheard === 'number' && Number.isFinite(unheard) ? unheard : 0;
        this.receive(base64, typeof wall === 'number' ? wall : null, unheardSeconds);
      },
    );
    await context.addInitScript({ content: CAPTURE_INIT_SCRIPT });
  }

  /**
   * Starts mixing every remote track the page has and will have, the way asked (the page falls back
   * to the AudioContext where it can't read tracks); resolves to the way it took.
   */
  async start(page: Page, sink: AudioSink, asked: AudioCaptureMode = 'audio-context'): Promise<string> {
    this.sink = sink;
    const mode = await page.evaluate(
      ([global, way]) =>
        (window as unknown as Record<string, { start(way: string): Promise<string> }>)[global]!.start(way),
      [CAPTURE_GLOBAL, asked] as const,
    );
    this.log.info({ mode }, 'audio capture started');
    this.clockLog = new PeriodicLoop({
      intervalMs: 60_000,
      task: async () => {
        const stats = await this.stats(page);
        this.log.info(
          {
            ...stats,
            capturedSeconds: this.capturedSeconds(),
            missingSeconds: this.timeline.missingSeconds(),
          },
          'capture clock',
        );
      },
      // A page that is closing or busy skips a line of the log; nothing depends on it.
      onError: () => {},
      holdsProcess: false,
    });
    this.clockLog.start();
    return String(mode);
  }

  stop(): void {
    this.sink = null;
    // Not awaited: a reading in progress asks a page that may hang, and only a log line waits on it.
    void this.clockLog?.stop();
    this.clockLog = null;
  }

  /** Seconds of audio captured so far (the capture clock as Node sees it). */
  capturedSeconds(): number {
    return this.timeline.capturedSeconds();
  }

  /** Milliseconds since the last chunk arrived; large values mean the page stopped delivering. */
  silenceOfDelivery(now = Date.now()): number {
    return this.firstChunkAt === null ? 0 : now - this.lastChunkAt;
  }

  async stats(page: Page): Promise<CaptureStats | null> {
    return (await page.evaluate(
      `window.${CAPTURE_GLOBAL} ? window.${CAPTURE_GLOBAL}.stats() : null`,
    )) as CaptureStats | null;
  }

  /**
   * `wall`: the page's reading of the chunk's first sample in wall time, null if it gave none;
   * `unheardSeconds`: how much of the chunk is silence standing in for audio no track delivered.
   */
  private receive(base64: string, wall: number | null, unheardSeconds: number): void {
    const sink = this.sink;
    if (!sink) return;
    const bytes = Buffer.from(base64, 'base64');
    if (bytes.length % 2 !== 0) {
      this.log.warn({ bytes: bytes.length }, 'dropping an odd-sized audio chunk');
      return;
    }
    const now = Date.now();
    if (this.firstChunkAt === null) this.firstChunkAt = now;
    this.lastChunkAt = now;
    // Copy into an aligned buffer: Buffer.from may hand back a slice of a shared pool at an odd offset.
    const samples = new Int16Array(bytes.length / 2);
    Buffer.from(samples.buffer).set(bytes);
    const arrivalEstimate = now - (samples.length / CAPTURE_SAMPLE_RATE) * 1000;
    this.timeline.append(samples.length, wall !== null && Number.isFinite(wall) ? wall : arrivalEstimate);
    if (unheardSeconds > 0) this.timeline.noteUnheard(unheardSeconds);
    sink(samples);
  }
}
