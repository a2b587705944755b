import type { BrowserContext, Page } from 'playwright-core';
import type { Logger } from '../../shared/infra/logger.js';
import {
  AUDIO_BINDING,
  CAPTURE_CHUNK_SAMPLES,
  CAPTURE_GLOBAL,
  CAPTURE_INIT_SCRIPT,
  CAPTURE_SAMPLE_RATE,
} from './capture-page-script.js';

export type AudioSink = (samples: Int16Array) => void;

export interface CaptureStats {
  mode: string | null;
  tracks: number;
  state: string | null;
}

/**
 * The Node half of the page's audio capture: installs the page script, receives its base64 Int16
 * chunks and passes them on as samples. The capture clock is the sample count; `startedAt` is the
 * wall time of the first sample, for absolute segment times.
 */
export class AudioCapture {
  private sink: AudioSink | null = null;
  private samples = 0;
  private firstChunkAt: number | null = null;
  private lastChunkAt = 0;
  /** The page's own reading of the first sample's wall time (its AudioContext clock mapping). */
  private pageStartWall: number | null = null;

  constructor(private readonly log: Logger) {}

  /** Must run before the meeting page loads, so the page's peer connections are hooked. */
  async install(context: BrowserContext): Promise<void> {
    await context.exposeBinding(AUDIO_BINDING, (_source, base64: unknown, startWall: unknown) => {
      if (this.pageStartWall === null && typeof startWall === 'number' && Number.isFinite(startWall)) {
        this.pageStartWall = startWall;
      }
      if (typeof base64 === 'string') this.receive(base64);
    });
    await context.addInitScript({ content: CAPTURE_INIT_SCRIPT });
  }

  /** Starts mixing every remote track the page has and will have. */
  async start(page: Page, sink: AudioSink): Promise<string> {
    this.sink = sink;
    const mode = await page.evaluate(`window.${CAPTURE_GLOBAL}.start()`);
    this.log.info({ mode }, 'audio capture started');
    return String(mode);
  }

  stop(): void {
    this.sink = null;
  }

  /** Wall time (ms) of the first captured sample; null before any audio arrived. */
  startedAt(): number | null {
    if (this.pageStartWall !== null) return this.pageStartWall;
    return this.firstChunkAt === null
      ? null
      : this.firstChunkAt - (CAPTURE_CHUNK_SAMPLES / CAPTURE_SAMPLE_RATE) * 1000;
  }

  /** Seconds of audio captured so far (the capture clock as Node sees it). */
  capturedSeconds(): number {
    return this.samples / CAPTURE_SAMPLE_RATE;
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

  private receive(base64: string): void {
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
    this.samples += samples.length;
    sink(samples);
  }
}
