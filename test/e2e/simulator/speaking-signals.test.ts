import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateMeetingInput } from '../../../simulator/schema.js';
import type { MeetingSnapshot } from '../../../simulator/snapshot.js';
import type { SpeakingInput } from '../../../simulator/speaking-signals.js';
import { collectPeerConnections } from '../../support/simulator-page.js';
import { type Harness, SHORT_LINES, startHarness } from './harness.js';

// Each speaking signal of the simulated pages, shown and hidden per meeting (`speaking.hidden`):
// a plain browser visitor joins, Alice says one line, and a probe in the page records what each
// signal showed. The meetings of a platform run side by side in one Chromium to keep this short.

const TIMEOUT = { timeout: 30_000 };
const SPEAKER = 'Alice Martin';
/** A receiver's audioLevel above this counts as heard speech. */
const RTC_SPEECH = 0.001;

interface RtcSample {
  at: number;
  /** Loudest audioLevel any receiver reported, or null when none reported one. */
  level: number | null;
  /** `typeof audioLevel` per synchronization source seen this tick. */
  kinds: string[];
}

interface Probe {
  /** Meet: highest data-audio-level; tile classes other than `tile`; highest People mic-level opacity. */
  audioLevel: number;
  tileClasses: string[];
  micOpacity: number;
  /** Teams: outline classes other than its own; highest inline opacity and border width (px). */
  outlineClasses: string[];
  outlineOpacity: number;
  outlineBorder: number;
  /** RTCPeerConnections the page created, and per-tick receiver levels. */
  connections: number;
  rtc: RtcSample[];
}

/** Samples, every 25 ms, what each speaking signal shows for `speaker`. */
async function startProbe(page: Page, speaker: string): Promise<void> {
  await page.evaluate((name) => {
    const probe: Probe = {
      audioLevel: 0,
      tileClasses: [],
      micOpacity: 0,
      outlineClasses: [],
      outlineOpacity: 0,
      outlineBorder: 0,
      connections: 0,
      rtc: [],
    };
    Object.assign(window, { __probe: probe });
    const connections = (window as unknown as { __connections: RTCPeerConnection[] }).__connections;
    const addNew = (list: string[], values: Iterable<string>, own: string) => {
      for (const value of values) if (value !== own && !list.includes(value)) list.push(value);
    };
    setInterval(() => {
      const tile = Array.from(document.querySelectorAll('.tile:not(.self)')).find((t) =>
        t.textContent?.includes(name),
      );
      if (tile) {
        addNew(probe.tileClasses, Array.from(tile.classList), 'tile');
        const level = Number(tile.querySelector('.level')?.getAttribute('data-audio-level') ?? '0');
        probe.audioLevel = Math.max(probe.audioLevel, level);
      }
      const mic = document.querySelector<HTMLElement>(`[role="listitem"][aria-label="${name}"] .mic-level`);
      if (mic) probe.micOpacity = Math.max(probe.micOpacity, Number(mic.style.opacity || '0'));
      const outline = document.querySelector<HTMLElement>(
        `.video-tile[data-tid="${name}"] [data-tid="voice-level-stream-outline"]`,
      );
      if (outline) {
        addNew(probe.outlineClasses, Array.from(outline.classList), 'voice-level-stream-outline');
        probe.outlineOpacity = Math.max(probe.outlineOpacity, Number(outline.style.opacity || '0'));
        probe.outlineBorder = Math.max(
          probe.outlineBorder,
          Number.parseFloat(outline.style.borderWidth || '0'),
        );
      }
      probe.connections = connections.length;
      let level: number | null = null;
      const kinds: string[] = [];
      for (const connection of connections) {
        if (connection.connectionState === 'closed') continue;
        for (const receiver of connection.getReceivers()) {
          for (const source of receiver.getSynchronizationSources()) {
            kinds.push(typeof source.audioLevel);
            if (typeof source.audioLevel === 'number') level = Math.max(level ?? 0, source.audioLevel);
          }
        }
      }
      probe.rtc.push({ at: Date.now(), level, kinds });
    }, 25);
  }, speaker);
}

function readProbe(page: Page): Promise<Probe> {
  return page.evaluate(() => (window as unknown as { __probe: Probe }).__probe);
}

interface Run {
  hidden: string[];
  meeting: MeetingSnapshot;
  probe: Probe;
  /** Receiver levels while the voice spoke (from 0.3 s in to 1 s after) and in the silence around it. */
  speech: (number | null)[];
  silence: (number | null)[];
  kinds: string[];
}

/** Creates one meeting per `speaking` setting, joins each in its own page, and plays Alice's line. */
async function runMeetings(
  harness: Harness,
  platform: CreateMeetingInput['platform'],
  settings: SpeakingInput[],
  join: (page: Page) => Promise<void>,
): Promise<Run[]> {
  const { client, browser } = harness;
  const context = await browser.newContext();
  try {
    return await Promise.all(
      settings.map(async (speaking) => {
        const meeting = await client.createMeeting({
          platform,
          admission: { policy: 'open' },
          ...(platform === 'google_meet' ? { traps: { peoplePanelOpen: true } } : {}),
          speaking,
          participants: [{ name: SPEAKER, utterances: [{ at: 1.5, text: SHORT_LINES.alice }] }],
        });
        const page = await context.newPage();
        await collectPeerConnections(page);
        await page.goto(meeting.url);
        await join(page);
        await client.waitForBotState(meeting.id, 'in_call', { timeoutMs: 30_000 });
        await startProbe(page, SPEAKER);
        const done = await client.waitForSpeechDone(meeting.id, { timeoutMs: 40_000 });
        // Some silence after the line, for the receivers' levels in silence.
        await page.waitForTimeout(1200);
        const probe = await readProbe(page);
        const [utterance] = done.utterances;
        const start = Date.parse(utterance?.speechStartedAt ?? '');
        const end = Date.parse(utterance?.speechEndedAt ?? '');
        // The voice reaches the receivers a little after the page starts it: up to a second late
        // still counts (CI saw one try's levels all below speech, alone in its lane, on a busy machine).
        const speech = probe.rtc.filter((s) => s.at > start + 300 && s.at < end + 1000).map((s) => s.level);
        const silence = probe.rtc
          .filter((s) => s.at < start - 500 || s.at > end + 500)
          .filter((s) => s.kinds.length > 0)
          .map((s) => s.level);
        const kinds = [...new Set(probe.rtc.flatMap((s) => s.kinds))];
        return { hidden: speaking.hidden ?? [], meeting: done, probe, speech, silence, kinds };
      }),
    );
  } finally {
    await context.close();
  }
}

function loudest(levels: (number | null)[]): number {
  return Math.max(0, ...levels.map((level) => level ?? 0));
}

/** The receivers' levels, for the report: speech peak and silence peak, and what audioLevel was. */
function describeRtc(run: Run): string {
  const spread = (levels: (number | null)[]) => {
    const sorted = levels.map((level) => level ?? 0).sort((a, b) => a - b);
    const at = (q: number) => (sorted[Math.floor(q * (sorted.length - 1))] ?? 0).toPrecision(2);
    return `min ${at(0)} median ${at(0.5)} max ${at(1)} (${sorted.length} samples)`;
  };
  return `hidden=[${run.hidden.join(',')}] speech ${spread(run.speech)}, silence ${spread(run.silence)}, audioLevel types ${run.kinds.join('/') || 'none'}`;
}

function expectRtc(run: Run): void {
  if (run.hidden.includes('webrtc')) {
    // No audio-level header extension: sources are still reported, without any audioLevel.
    expect(run.kinds.length).toBeGreaterThan(0);
    expect(loudest(run.speech)).toBe(0);
    expect(loudest(run.silence)).toBe(0);
  } else {
    expect(loudest(run.speech)).toBeGreaterThan(RTC_SPEECH);
  }
}

interface CaptionSample {
  at: number;
  /** Whether the captions region is in the page. */
  region: boolean;
  items: { author: string; text: string }[];
}

/** Records, every 25 ms, what the Teams captions region shows, whenever it changes. */
async function startCaptionProbe(page: Page): Promise<void> {
  await page.evaluate(() => {
    const samples: CaptionSample[] = [];
    Object.assign(window, { __captions: samples });
    let last = '';
    setInterval(() => {
      const region = document.querySelector('[data-tid="closed-caption-renderer-wrapper"]');
      const items = Array.from(region?.querySelectorAll('[data-tid="closed-caption-text"]') ?? []).map(
        (text) => ({
          author: text.parentElement?.querySelector('[data-tid="author"]')?.textContent ?? '',
          text: text.textContent ?? '',
        }),
      );
      const sample = { at: Date.now(), region: region !== null, items };
      const key = JSON.stringify([sample.region, items]);
      if (key !== last) samples.push(sample);
      last = key;
    }, 25);
  });
}

function readCaptions(page: Page): Promise<CaptionSample[]> {
  return page.evaluate(() => (window as unknown as { __captions: CaptionSample[] }).__captions);
}

describe('simulator: speaking signals, each switchable off per meeting', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('Google Meet: data-audio-level, the tile class, the People mic level and WebRTC levels', async () => {
    const runs = await runMeetings(
      harness,
      'google_meet',
      [
        { hidden: [] },
        { hidden: ['audio_level'] },
        { hidden: ['tile_class'] },
        { hidden: ['people_panel'], tileClass: 'HX2H7' },
        { hidden: ['webrtc'] },
      ],
      async (page) => {
        await page.getByLabel('Your name').fill('Visitor');
        await page.getByRole('button', { name: 'Join now', exact: true }).click();
      },
    );
    for (const run of runs) {
      console.info(`google_meet receivers: ${describeRtc(run)}`);
      expect(run.meeting.utterances.map((u) => u.status)).toEqual(['played']);
      expect(run.meeting.speaking.hidden).toEqual(run.hidden);
      if (run.meeting.bot.audioTransport === 'rtc-loopback') expectRtc(run);
      const { probe } = run;
      const shown = (signal: string) => !run.hidden.includes(signal);
      expect(probe.audioLevel > 0, `audio_level with ${run.hidden}`).toBe(shown('audio_level'));
      expect(probe.micOpacity > 0, `people_panel with ${run.hidden}`).toBe(shown('people_panel'));
      if (!shown('tile_class')) expect(probe.tileClasses).toEqual([]);
      else if (run.meeting.speaking.tileClass === 'generated') {
        expect(probe.tileClasses).toHaveLength(1);
        expect(['Oaajhc', 'HX2H7', 'wEsLMd', 'OgVli']).not.toContain(probe.tileClasses[0]);
      } else expect(probe.tileClasses).toEqual([run.meeting.speaking.tileClass]);
    }
  });

  it('Teams: the outline class, the outline style and WebRTC levels', async () => {
    const runs = await runMeetings(
      harness,
      'teams',
      [{ hidden: [] }, { hidden: ['outline_class'] }, { hidden: ['outline_style'] }, { hidden: ['webrtc'] }],
      async (page) => {
        await page.getByRole('button', { name: 'Continue on this browser' }).click(TIMEOUT);
        await page.locator('[data-tid="prejoin-display-name-input"]').fill('Visitor');
        await page.locator('[data-tid="prejoin-join-button"]').click();
      },
    );
    for (const run of runs) {
      console.info(`teams receivers: ${describeRtc(run)}`);
      expect(run.meeting.utterances.map((u) => u.status)).toEqual(['played']);
      if (run.meeting.bot.audioTransport === 'rtc-loopback') expectRtc(run);
      const { probe } = run;
      const shown = (signal: string) => !run.hidden.includes(signal);
      expect(probe.outlineClasses).toEqual(shown('outline_class') ? ['vdi-frame-occlusion'] : []);
      expect(probe.outlineOpacity > 0, `outline_style with ${run.hidden}`).toBe(shown('outline_style'));
      expect(probe.outlineBorder > 0, `outline_style with ${run.hidden}`).toBe(shown('outline_style'));
    }
  });

  it('Teams: live captions trail the speech and grow word by word (liveCaptions)', async () => {
    const { client, browser } = harness;
    const context = await browser.newContext();
    const join = async (liveCaptions: boolean, participants: CreateMeetingInput['participants']) => {
      const meeting = await client.createMeeting({
        platform: 'teams',
        admission: { policy: 'open' },
        traps: { liveCaptions },
        participants,
      });
      const page = await context.newPage();
      await page.goto(meeting.url);
      await page.getByRole('button', { name: 'Continue on this browser' }).click(TIMEOUT);
      await page.locator('[data-tid="prejoin-display-name-input"]').fill('Visitor');
      await page.locator('[data-tid="prejoin-join-button"]').click();
      await client.waitForBotState(meeting.id, 'in_call', { timeoutMs: 30_000 });
      await startCaptionProbe(page);
      const done = await client.waitForSpeechDone(meeting.id, { timeoutMs: 40_000 });
      await page.waitForTimeout(1500);
      return { meeting: done, samples: await readCaptions(page) };
    };
    // The lines start 4.5 s into the call: the probe starts after the page sees the bot in the call,
    // which takes seconds on a loaded machine, and it has to see the region empty and the overlap.
    const oneLine = [{ name: SPEAKER, utterances: [{ at: 4.5, text: SHORT_LINES.alice }] }];
    // Bob talks over Alice; five lines in all, so the first item has gone by the end.
    const lines = {
      alice2: 'Let us wrap up now.',
      carol: 'Next item please.',
      dave: 'I agree with that plan.',
    };
    const busy = [
      {
        name: SPEAKER,
        utterances: [
          { at: 4.5, text: SHORT_LINES.alice },
          { at: 12, text: lines.alice2 },
        ],
      },
      { name: 'Bob Stone', utterances: [{ at: 5.2, text: SHORT_LINES.bob }] },
      { name: 'Carol Diaz', utterances: [{ at: 8.5, text: lines.carol }] },
      { name: 'Dave Lee', utterances: [{ at: 10.2, text: lines.dave }] },
    ];
    try {
      const [on, off, many] = await Promise.all([
        join(true, oneLine),
        join(false, oneLine),
        join(true, busy),
      ]);

      // Without the trap there is no captions region at all.
      expect(off.meeting.utterances.map((u) => u.status)).toEqual(['played']);
      expect(off.samples.length).toBeGreaterThan(0);
      expect(off.samples.every((sample) => !sample.region)).toBe(true);

      // With it the region is there from the start of the call, empty until the speech is captioned.
      expect(on.meeting.utterances.map((u) => u.status)).toEqual(['played']);
      expect(on.samples.every((sample) => sample.region)).toBe(true);
      expect(on.samples[0]?.items).toEqual([]);
      const [utterance] = on.meeting.utterances;
      const speechStart = Date.parse(utterance?.speechStartedAt ?? '');
      const speechEnd = Date.parse(utterance?.speechEndedAt ?? '');
      const shown = on.samples.filter((sample) => sample.items.length > 0);
      const first = shown[0];
      expect(first, 'a caption item appears').toBeDefined();
      // About 0.6 s after the voice starts: not with it, and well before it ends.
      const delay = (first?.at ?? 0) - speechStart;
      console.info(
        `teams captions: first item ${delay} ms after speech start, ${shown.length} texts, speech ${speechEnd - speechStart} ms`,
      );
      expect(delay).toBeGreaterThan(400);
      expect(delay).toBeLessThan(1200);
      // One item, by the speaker, whose text only grows (each a prefix of the next) to the line.
      const texts = shown.map((sample) => {
        expect(sample.items).toHaveLength(1);
        expect(sample.items[0]?.author).toBe(SPEAKER);
        return sample.items[0]?.text ?? '';
      });
      for (let i = 1; i < texts.length; i += 1) {
        expect(texts[i]?.startsWith(texts[i - 1] ?? ''), `${texts[i - 1]} -> ${texts[i]}`).toBe(true);
      }
      const words = SHORT_LINES.alice.split(' ');
      expect(texts[0]?.split(' ').length).toBeLessThan(words.length);
      expect(new Set(texts).size).toBeGreaterThanOrEqual(words.length - 1);
      expect(on.samples.at(-1)?.items).toEqual([{ author: SPEAKER, text: SHORT_LINES.alice }]);
      // Full only once the speech has (nearly) ended, and it stays put after (samples are changes).
      const full = shown.findIndex((sample) => sample.items[0]?.text === SHORT_LINES.alice);
      expect(shown[full]?.at ?? 0).toBeGreaterThan(speechEnd - 500);
      expect(full).toBe(shown.length - 1);

      // Overlapping speech: two items growing at once; never more than 4; the oldest goes first.
      expect(many.meeting.utterances.map((u) => u.status)).toEqual(Array(5).fill('played'));
      expect(Math.max(...many.samples.map((sample) => sample.items.length))).toBe(4);
      const bothGrowing = many.samples.filter(
        (sample) =>
          sample.items.length === 2 &&
          sample.items[0]?.text !== SHORT_LINES.alice &&
          sample.items[1]?.text !== SHORT_LINES.bob,
      );
      expect(bothGrowing.length, 'samples with Alice and Bob both partly captioned').toBeGreaterThan(1);
      expect(new Set(bothGrowing.map((sample) => sample.items[0]?.text)).size).toBeGreaterThan(1);
      expect(new Set(bothGrowing.map((sample) => sample.items[1]?.text)).size).toBeGreaterThan(1);
      expect(bothGrowing[0]?.items.map((item) => item.author)).toEqual([SPEAKER, 'Bob Stone']);
      expect(many.samples.at(-1)?.items).toEqual([
        { author: 'Bob Stone', text: SHORT_LINES.bob },
        { author: 'Carol Diaz', text: lines.carol },
        { author: 'Dave Lee', text: lines.dave },
        { author: SPEAKER, text: lines.alice2 },
      ]);
    } finally {
      await context.close();
    }
  });
});
