import type { Browser, Page } from 'playwright-core';
import { SimulatorClient } from '../../../simulator/client.js';
import { createSimulator, type Simulator } from '../../../simulator/server.js';
import { launchTestChromium } from '../../support/chromium.js';

export interface Harness {
  simulator: Simulator;
  client: SimulatorClient;
  browser: Browser;
  close(): Promise<void>;
}

export async function startHarness(): Promise<Harness> {
  const simulator = await createSimulator();
  const browser = await launchTestChromium();
  return {
    simulator,
    client: new SimulatorClient(simulator.url),
    browser,
    close: async () => {
      await browser.close();
      await simulator.close();
    },
  };
}

/**
 * What a bot does to hear a meeting, done here to prove the audio really reaches the page:
 * remember every remote track an RTCPeerConnection delivers (must run before the page's scripts).
 */
export async function hookRemoteTracks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const seen: MediaStreamTrack[] = [];
    const ids: string[] = [];
    Object.assign(window, { __remoteTracks: seen, __remoteStreamIds: ids });
    const Original = window.RTCPeerConnection;
    window.RTCPeerConnection = class extends Original {
      constructor(config?: RTCConfiguration) {
        super(config);
        this.addEventListener('track', (event) => {
          if (event.track.kind === 'audio') seen.push(event.track);
          for (const stream of event.streams) ids.push(stream.id);
        });
      }
    };
  });
}

export interface AudioProbeResult {
  /** Loudest RMS heard across the sources. */
  peakRms: number;
  sources: number;
  /** Texts of speaking indicators seen on, e.g. tile names. */
  speakers: string[];
  /** Probe ticks (30 ms) where the audio was audible and some tile showed speaking at once. */
  speakingWhileAudibleTicks: number;
}

/**
 * Starts measuring, in the page, the audio a bot could capture (the `<audio>` elements under
 * <body>, else the remote tracks remembered by hookRemoteTracks) and which tiles show speaking.
 * `speakingSelector` finds speaking tiles, named by `nameSelector` inside them or their data-tid.
 */
export async function startAudioProbe(
  page: Page,
  options: { speakingSelector: string; nameSelector?: string },
): Promise<void> {
  await page.evaluate(
    ({ speakingSelector, nameSelector }) => {
      const context = new AudioContext();
      const analysers: AnalyserNode[] = [];
      const attached = new Set<unknown>();
      const result = { peakRms: 0, sources: 0, speakers: [] as string[], speakingWhileAudibleTicks: 0 };
      Object.assign(window, { __probe: result });
      const attach = (key: unknown, stream: MediaStream) => {
        if (attached.has(key)) return;
        attached.add(key);
        const analyser = context.createAnalyser();
        context.createMediaStreamSource(stream).connect(analyser);
        analysers.push(analyser);
        result.sources = analysers.length;
      };
      const samples = new Float32Array(2048);
      setInterval(() => {
        for (const element of Array.from(document.querySelectorAll<HTMLAudioElement>('body > audio'))) {
          if (element.srcObject instanceof MediaStream) attach(element, element.srcObject);
        }
        for (const track of (window as unknown as { __remoteTracks?: MediaStreamTrack[] }).__remoteTracks ??
          []) {
          attach(track, new MediaStream([track]));
        }
        let loudest = 0;
        for (const analyser of analysers) {
          analyser.getFloatTimeDomainData(samples);
          let sum = 0;
          for (const value of samples) sum += value * value;
          loudest = Math.max(loudest, Math.sqrt(sum / samples.length));
        }
        result.peakRms = Math.max(result.peakRms, loudest);
        const speakingTiles = Array.from(document.querySelectorAll(speakingSelector));
        if (loudest > 0.01 && speakingTiles.length > 0) result.speakingWhileAudibleTicks += 1;
        for (const tile of speakingTiles) {
          const named = nameSelector ? tile.querySelector(nameSelector)?.textContent : null;
          const name = named ?? tile.getAttribute('data-tid') ?? '';
          if (!result.speakers.includes(name)) result.speakers.push(name);
        }
      }, 30);
    },
    { speakingSelector: options.speakingSelector, nameSelector: options.nameSelector ?? null },
  );
}

export function readAudioProbe(page: Page): Promise<AudioProbeResult> {
  return page.evaluate(() => (window as unknown as { __probe: AudioProbeResult }).__probe);
}

/** Seconds of speech kept short: each test plays a sentence or two. */
export const SHORT_LINES = {
  alice: 'Good morning everyone, let us begin.',
  bob: 'Thanks Alice, the numbers look good.',
};
