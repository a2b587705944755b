import { z } from 'zod';
import type { BotConfig } from '../shared/contract/bot-config.js';
import type { StorageState } from '../shared/contract/storage-state.js';
import type { Logger } from '../shared/infra/logger.js';
import { MEDIA_INIT_SCRIPT } from './actions/media-page-script.js';
import { type PageMedia, pageMedia } from './actions/page-media.js';
import { AudioCapture, type AudioSink } from './audio/capture.js';
import type { CaptureTimeline } from './audio/capture-timeline.js';
import { type BrowserSession, guardNavigation, launchBrowser } from './browser.js';
import type { Outcome } from './end-signal.js';
import { createNavigationPolicy } from './navigation-policy.js';
import type { PlatformDriver } from './platforms/driver.js';
import { createPlatformDriver } from './platforms/platform-drivers.js';
import { SPEAKING_BINDING } from './platforms/speaking-scripts.js';
import type { SignalledSpeakingChange } from './speakers/attribution.js';
import { speakingSignal } from './speakers/signals.js';
import { VIDEO_GLOBAL } from './video/decoded-frames.js';
import { selectVideoMeasures, type VideoMeasure } from './video/measures.js';
import { videoPageScript } from './video/page-script.js';

/** The browser side of a session: the platform driver, the audio capture and speaking evidence. */
export interface MeetingPage {
  driver: PlatformDriver;
  startCapture(sink: AudioSink): Promise<void>;
  /** Where the captured audio sits in wall time (empty before audio arrived). */
  timeline: CaptureTimeline;
  /** Milliseconds since the page last delivered audio (0 before the first). */
  silenceOfDelivery(): number;
  /** The bot's own microphone and camera tracks, which speak and screen requests feed. */
  media: PageMedia;
  /** The video measures chosen for this page (bot/video/measures.ts); its script is installed. */
  videoMeasures: readonly VideoMeasure[];
  /** Remote video frames the page has decoded so far; null when the page can't say. */
  videoFramesDecoded(): Promise<number | null>;
  close(): Promise<void>;
}

export interface MeetingPageHooks {
  onSpeaking(change: SignalledSpeakingChange): void;
  /** The page can't go on: a refused navigation, a crash. */
  onFatal(outcome: Outcome): void;
}

export interface MeetingPageOptions {
  /** A signed-in bot's browser session, which its context opens with. */
  storageState?: StorageState | undefined;
}

export type MeetingPageFactory = (
  config: BotConfig,
  hooks: MeetingPageHooks,
  log: Logger,
  options?: MeetingPageOptions,
) => Promise<MeetingPage>;

const speakingChanges = z.array(z.tuple([speakingSignal, z.string(), z.boolean(), z.number()]));

/** Chromium with the navigation guard, the capture and speaking scripts installed before any page loads. */
export const openChromiumMeetingPage: MeetingPageFactory = async (config, hooks, log, options = {}) =>
  openMeetingPageIn(await launchBrowser(config.browser, log, options.storageState), config, hooks, log);

/** The meeting page on a browser session (closed with it, and on failure). */
export async function openMeetingPageIn(
  browser: BrowserSession,
  config: BotConfig,
  hooks: MeetingPageHooks,
  log: Logger,
): Promise<MeetingPage> {
  try {
    const lost = (detail: string) => () => hooks.onFatal({ status: 'failed', reason: 'crashed', detail });
    const disconnected = lost('chromium exited');
    browser.browser.on('disconnected', disconnected);
    browser.page.on('crash', lost('the meeting page crashed'));
    browser.page.on('close', lost('the meeting page closed'));
    const policy = createNavigationPolicy(config.platform, config.extraAllowedOrigins);
    await guardNavigation(
      browser,
      policy,
      (verdict, url) => hooks.onFatal({ status: 'failed', reason: verdict, detail: `navigation to ${url}` }),
      log,
    );
    const driver = createPlatformDriver(config.platform, browser.page, log);
    // Before the capture script, which wraps this getUserMedia and so counts its tracks as the bot's own.
    await browser.context.addInitScript({ content: MEDIA_INIT_SCRIPT });
    const capture = new AudioCapture(log);
    await capture.install(browser.context);
    await browser.page.exposeBinding(SPEAKING_BINDING, (_source, json: unknown) => {
      let raw: unknown = null;
      try {
        raw = typeof json === 'string' ? JSON.parse(json) : null;
      } catch {
        return;
      }
      const parsed = speakingChanges.safeParse(raw);
      if (!parsed.success) return;
      for (const [signal, name, speaking, at] of parsed.data)
        hooks.onSpeaking({ signal, name, speaking, at });
    });
    await browser.page.addInitScript({ content: driver.speakingScript });
    const videoMeasures = selectVideoMeasures({
      skip: config.video.skip,
      driverTurnsOffIncomingVideo: driver.turnOffIncomingVideo !== undefined,
    });
    await browser.context.addInitScript({ content: videoPageScript(videoMeasures) });
    return {
      driver,
      startCapture: async (sink) => {
        await capture.start(browser.page, sink, config.audioCapture);
      },
      timeline: capture.timeline,
      silenceOfDelivery: () => capture.silenceOfDelivery(),
      media: pageMedia(browser.page),
      videoMeasures,
      videoFramesDecoded: async () => {
        const frames = await browser.page.evaluate(
          (name) =>
            (window as unknown as Record<string, { framesDecoded(): Promise<number> } | undefined>)[
              name
            ]?.framesDecoded() ?? null,
          VIDEO_GLOBAL,
        );
        return typeof frames === 'number' ? frames : null;
      },
      close: async () => {
        browser.browser.off('disconnected', disconnected);
        capture.stop();
        await browser.close();
      },
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
