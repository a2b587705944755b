import type { Page } from 'playwright-core';
import { MEDIA_GLOBAL } from './media-page-script.js';

export interface Scheduled {
  /** From now until the clip starts playing (after what was queued before it). */
  startsInMs: number;
  durationMs: number;
}

/** The bot's synthetic microphone in the meeting page (media-page-script.ts). */
export interface PageMedia {
  playPcm(samples: Int16Array, sampleRate: number): Promise<Scheduled>;
  playEncoded(bytes: Uint8Array): Promise<Scheduled>;
  remainingMs(): Promise<number>;
  /** When the page last took the microphone track (ms since the epoch), null if never. */
  takenAt(): Promise<number | null>;
  stop(): Promise<void>;
  /** Shows an image as the bot's camera (its size in pixels); hideImage goes back to black. */
  showImage(bytes: Uint8Array): Promise<{ width: number; height: number }>;
  hideImage(): Promise<void>;
  /** When the page last took the camera track, null if never. */
  cameraTakenAt(): Promise<number | null>;
}

function base64Of(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function pageMedia(page: Page): PageMedia {
  // A string expression, not a function: tsx's transpiled functions carry helpers the page lacks.
  const call = <T>(method: string, ...args: unknown[]): Promise<T> =>
    page.evaluate(
      `window.${MEDIA_GLOBAL}.${method}(${args.map((arg) => JSON.stringify(arg)).join(', ')})`,
    ) as Promise<T>;
  return {
    playPcm: (samples, sampleRate) =>
      call(
        'playPcm',
        base64Of(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)),
        sampleRate,
      ),
    playEncoded: (bytes) => call('playEncoded', base64Of(bytes)),
    remainingMs: () => call('remainingMs'),
    takenAt: async () => (await call<{ at: number | null }>('taken')).at,
    stop: () => call('stop'),
    showImage: (bytes) => call('showImage', base64Of(bytes)),
    hideImage: () => call('hideImage'),
    cameraTakenAt: () => call('cameraTakenAt'),
  };
}
