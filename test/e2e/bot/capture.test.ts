import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioCapture } from '../../../bot/audio/capture.js';
import { type BrowserSession, launchBrowser } from '../../../bot/browser.js';
import { AUDIO_CAPTURE_MODES } from '../../../shared/contract/bot-config.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { HOST_CHROMIUM } from '../../support/chromium.js';
import { rms, toneShare } from '../../support/tone.js';

const FIXTURE = readFileSync(new URL('../../fixtures/bot/audio-page.html', import.meta.url), 'utf8');
const RATE = 16_000;

interface Chunk {
  arrivedAt: number;
  samples: Int16Array;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(AUDIO_CAPTURE_MODES)('in-page audio capture, %s', (asked) => {
  let server: Server;
  let session: BrowserSession;
  const chunks: Chunk[] = [];
  const log = createLogger('bot-capture-test', 'silent');
  const capture = new AudioCapture(log);

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(FIXTURE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    session = await launchBrowser(
      { executablePath: '/usr/bin/chromium', headless: true, ...HOST_CHROMIUM },
      log,
    );
    await capture.install(session.context);
    await session.page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });

  afterAll(async () => {
    await session?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('mixes every remote stream, early or late, into continuous 16 kHz PCM and skips the local mic', async () => {
    const page = session.page;
    // Present before capture starts, plus the bot's own microphone played back.
    await page.evaluate('window.fixture.element("a", 440)');
    await page.evaluate('window.fixture.localMic()');
    const mode = await capture.start(
      page,
      (samples) => chunks.push({ arrivedAt: Date.now(), samples }),
      asked,
    );
    if (asked === 'track-processor') expect(mode).toBe('track-processor');
    else expect(['worklet', 'script-processor']).toContain(mode);

    const phases: { name: string; from: number; to: number }[] = [];
    const phase = async (name: string, action: string | null, ms = 2500) => {
      if (action) await page.evaluate(action);
      const from = Date.now();
      await sleep(ms);
      phases.push({ name, from, to: Date.now() });
    };
    await phase('a440', null);
    await phase('silence1', 'window.fixture.stop("a")');
    await phase('b880', 'window.fixture.element("b", 880)');
    await phase('c1320', 'window.fixture.stop("b"); window.fixture.reassign(0, "c", 1320)');
    await phase('d660', 'window.fixture.stop("c"); window.fixture.peer("d", 660)');
    await phase('silence2', 'window.fixture.stop("d")');

    // Chunks arriving well inside each phase (audio reaches Node a few hundred ms late).
    const inside = (name: string) => {
      const p = phases.find((candidate) => candidate.name === name)!;
      return chunks.filter((chunk) => chunk.arrivedAt > p.from + 1000 && chunk.arrivedAt <= p.to);
    };
    const expectTone = (name: string, frequency: number) => {
      const selected = inside(name);
      expect(selected.length, name).toBeGreaterThan(2);
      // Most, not all: on a loaded machine a chunk may straddle a phase boundary.
      const matching = selected.filter(
        (chunk) => rms(chunk.samples) > 500 && toneShare(chunk.samples, frequency) > 0.5,
      );
      expect(matching.length / selected.length, `${name} tone`).toBeGreaterThanOrEqual(0.75);
    };
    const expectSilence = (name: string) => {
      const selected = inside(name);
      expect(selected.length, name).toBeGreaterThan(2);
      const quiet = selected.filter((chunk) => rms(chunk.samples) < 50);
      expect(quiet.length / selected.length, `${name} level`).toBeGreaterThanOrEqual(0.75);
    };
    expectTone('a440', 440);
    expectSilence('silence1');
    expectTone('b880', 880);
    expectTone('c1320', 1320);
    expectTone('d660', 660);
    expectSilence('silence2');

    // Continuous: as many samples as wall time passed (silence included), in fixed-size chunks.
    const total = chunks.reduce((sum, chunk) => sum + chunk.samples.length, 0);
    const span = (chunks.at(-1)!.arrivedAt - chunks[0]!.arrivedAt) / 1000 + chunks[0]!.samples.length / RATE;
    expect(total / RATE).toBeGreaterThan(span * 0.9);
    expect(total / RATE).toBeLessThan(span * 1.1);
    expect(capture.capturedSeconds()).toBeCloseTo(total / RATE, 5);
    const stats = await capture.stats(page);
    expect(stats?.state).toBe('running');
  });
});
