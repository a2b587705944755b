import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateMeetingInput } from '../../../simulator/schema.js';
import { collectPeerConnections, joinMeet, joinTeams } from '../../support/simulator-page.js';
import { type Harness, startHarness } from './harness.js';

// The `load` setting: with it on, the page a bot joins really receives, decodes and shows remote
// WebRTC video (each present person's camera and a screen share) and carries the real client's
// weight; with it off (the default) the page gets no video at all. What the page received is read
// the way a bot could: from every RTCPeerConnection's getStats(). The page's own senders send
// encoded clips, so it decodes video of the real sizes without encoding it.

const TIMEOUT = { timeout: 30_000 };

interface InboundVideo {
  id: string;
  framesDecoded: number;
  frameWidth: number;
  frameHeight: number;
}

/** The video stats of `type` of every live connection the page made, as getStats reports them. */
function videoStats(page: Page, type: 'inbound-rtp' | 'outbound-rtp'): Promise<Record<string, unknown>[]> {
  return page.evaluate(async (wanted) => {
    const connections = (window as unknown as { __connections: RTCPeerConnection[] }).__connections;
    const found: Record<string, unknown>[] = [];
    for (const connection of connections) {
      if (connection.connectionState === 'closed') continue;
      const report = await connection.getStats();
      report.forEach((stat: Record<string, unknown>) => {
        if (stat.type === wanted && stat.kind === 'video') found.push({ ...stat });
      });
    }
    return found;
  }, type);
}

/** The inbound-rtp video streams of every live connection the page made. */
async function inboundVideo(page: Page): Promise<InboundVideo[]> {
  return (await videoStats(page, 'inbound-rtp')).map((stat) => ({
    id: String(stat.id),
    framesDecoded: Number(stat.framesDecoded ?? 0),
    frameWidth: Number(stat.frameWidth ?? 0),
    frameHeight: Number(stat.frameHeight ?? 0),
  }));
}

/** The widths the page's own senders encode (outbound-rtp video of every live connection). */
async function encodedWidths(page: Page): Promise<number[]> {
  return (await videoStats(page, 'outbound-rtp'))
    .map((stat) => stat.frameWidth)
    .filter((width): width is number => typeof width === 'number');
}

const PEOPLE = [{ name: 'Alice Martin' }, { name: 'Bob Chen' }, { name: 'Carol Diaz' }];

describe('simulator: realistic load (video and page weight)', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function joined(input: CreateMeetingInput, join: (page: Page) => Promise<void>) {
    const meeting = await harness.client.createMeeting(input);
    const page = await harness.browser.newPage();
    await collectPeerConnections(page);
    await page.goto(meeting.url);
    await join(page);
    await harness.client.waitForBotState(meeting.id, 'in_call', { timeoutMs: 30_000 });
    return { meeting, page };
  }

  it('Google Meet with cameras and a screen share: the page decodes a video track per camera and one for the screen, at their sizes', async () => {
    const { meeting, page } = await joined(
      {
        platform: 'google_meet',
        admission: { policy: 'open' },
        participants: PEOPLE,
        load: { cameras: true, screenShare: 'on' },
      },
      joinMeet,
    );
    expect(meeting.load).toEqual({ cameras: true, screenShare: 'on', pageWeight: false });
    // Every stream decoding and at its full size (the first camera large, the others the grid's 360p).
    let streams: InboundVideo[] = [];
    const deadline = Date.now() + 30_000;
    const sizes = () => streams.map((s) => `${s.frameWidth}x${s.frameHeight}`).sort();
    const expected = ['1280x720', '1920x1080', '640x360', '640x360'];
    while (Date.now() < deadline) {
      streams = await inboundVideo(page);
      if (streams.every((s) => s.framesDecoded > 10) && sizes().join() === expected.join()) break;
      await page.waitForTimeout(500);
    }
    expect(sizes()).toEqual(expected);
    for (const stream of streams) expect(stream.framesDecoded).toBeGreaterThan(10);
    // Not encoded by the page: its senders encode a tiny stand-in and send the encoded clips.
    const widths = await encodedWidths(page);
    expect(widths).toHaveLength(4);
    for (const width of widths) expect(width).toBeLessThanOrEqual(64);
    // Off the page's main thread: the senders' work belongs to the page's drawing worker.
    expect(page.workers().map((worker) => new URL(worker.url()).pathname)).toContain(
      '/assets/common/video-drawing-worker.js',
    );
    // Shown: the page plays each remote track in a <video> element.
    const playing = await page.evaluate(() =>
      Array.from(document.querySelectorAll<HTMLVideoElement>('[data-sim-video]')).map((video) => ({
        kind: video.getAttribute('data-sim-video'),
        width: video.videoWidth,
        playing: !video.paused && video.readyState >= 2,
      })),
    );
    expect(playing.filter((video) => video.kind === 'camera' && video.playing)).toHaveLength(3);
    expect(playing.filter((video) => video.kind === 'screen' && video.playing)).toHaveLength(1);
    await page.close();
  });

  it('Google Meet with the screen share half the time: it is shown from the start of the call, then stops', async () => {
    const { page } = await joined(
      {
        platform: 'google_meet',
        admission: { policy: 'open' },
        participants: PEOPLE.slice(0, 1),
        load: { screenShare: 'half' },
      },
      joinMeet,
    );
    const screen = page.locator('[data-sim-video="screen"]');
    await screen.waitFor(TIMEOUT);
    await expect
      .poll(async () => (await inboundVideo(page)).some((s) => s.framesDecoded > 0), TIMEOUT)
      .toBe(true);
    expect(await page.locator('[data-sim-video="camera"]').count()).toBe(0);
    // 30 s on, then off: the element goes and its track is no longer sent.
    await screen.waitFor({ state: 'detached', timeout: 60_000 });
    // Its receiver's stats may stay listed; what matters is that nothing more is decoded.
    const decoded = async () => (await inboundVideo(page)).reduce((sum, s) => sum + s.framesDecoded, 0);
    await expect
      .poll(async () => {
        const before = await decoded();
        await page.waitForTimeout(1500);
        return (await decoded()) - before;
      }, TIMEOUT)
      .toBe(0);
    await page.close();
  }, 90_000);

  it('Teams with the load off (the default): no video arrives at all', async () => {
    const { meeting, page } = await joined(
      { platform: 'teams', admission: { policy: 'open' }, participants: PEOPLE },
      joinTeams,
    );
    expect(meeting.load).toEqual({ cameras: false, screenShare: 'off', pageWeight: false });
    // Long enough for video to have arrived if any were sent (it arrives within a second or two).
    await page.waitForTimeout(4000);
    expect(await inboundVideo(page)).toEqual([]);
    expect(await page.locator('[data-sim-video]').count()).toBe(0);
    expect(await page.locator('[data-sim="page-weight"]').count()).toBe(0);
    await page.close();
  });

  it('Teams with cameras and page weight: camera video decodes, and the page holds the client-sized DOM and script heap', async () => {
    const { page } = await joined(
      {
        platform: 'teams',
        admission: { policy: 'open' },
        participants: PEOPLE.slice(0, 2),
        load: { cameras: true, pageWeight: true },
      },
      joinTeams,
    );
    await expect
      .poll(async () => (await inboundVideo(page)).filter((s) => s.framesDecoded > 0).length, TIMEOUT)
      .toBe(2);
    const weight = await page.evaluate(() => ({
      elements: document.querySelectorAll('[data-sim="page-weight"] *').length,
      heapMiB:
        ((performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0) /
        1024 /
        1024,
    }));
    expect(weight.elements).toBeGreaterThanOrEqual(9000 - 1);
    // PAGE_WEIGHT.teams keeps 200 MiB of records alive (estimated per record; a margin for V8's packing).
    expect(weight.heapMiB).toBeGreaterThan(150);
    await page.close();
  });
});
