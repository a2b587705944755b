import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchTestChromium } from '../../support/chromium.js';
import { type Stack, startStack } from '../../support/stack.js';
import { type AppPage, openApp, seriousAccessibilityViolations, signIn } from '../../support/web-app.js';

/**
 * Issue 30's proof through the whole stack: a person signs in to the web app, sends a bot into a
 * simulated Google Meet meeting by pasting its link, watches the status reach active and the
 * transcript grow live with the speakers' names, stops the bot, then plays the recording: the
 * highlighted segment follows playback and a click seeks. axe-core finds no serious violation on
 * the meeting page, and its screenshot goes to docs/ for the README.
 */
const SCRIPT = [
  {
    name: 'Alice Archer',
    voice: 'slt' as const,
    utterances: [
      { at: 1, text: 'good morning everyone and welcome to the weekly review' },
      { at: 16, text: 'the new office will open in the spring' },
    ],
  },
  {
    name: 'Bob Baker',
    voice: 'rms' as const,
    utterances: [
      { at: 8, text: 'thank you I finished the quarterly report yesterday' },
      { at: 23, text: 'we should schedule a meeting with the design team' },
    ],
  },
];
const SCREENSHOT = new URL('../../../docs/web-app-meeting.png', import.meta.url).pathname;

let stack: Stack;
let browser: Browser;
let app: AppPage | undefined;

beforeAll(async () => {
  stack = await startStack();
  stack.startWorker('web-app-w1');
  browser = await launchTestChromium();
});
afterAll(async () => {
  await app?.context.close().catch(() => {});
  await browser?.close();
  await stack?.close();
});

interface ShownSegment {
  index: number;
  start: number;
  end: number;
  speaker: string;
}

/** The highlighted row's segment, read from the API's transcript by its position. */
async function highlighted(page: Page): Promise<number | undefined> {
  const index = await page
    .locator('li.segment[aria-current="true"]')
    .getAttribute('data-index', { timeout: 500 })
    .catch(() => null);
  return index === null ? undefined : Number(index);
}

function audioTime(audio: Locator): Promise<number> {
  return audio.evaluate((element: HTMLAudioElement) => element.currentTime);
}

describe('the web app through the stack', () => {
  it('is served by the compiled API process (dist/api beside dist/web, as `npm run up` runs it)', async () => {
    const compiled = await stack.startApiProcess();
    try {
      const page = await fetch(`${compiled.baseUrl}/app/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await page.text();
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      const asset = await fetch(`${compiled.baseUrl}/app/${script}`);
      expect([asset.status, asset.headers.get('content-type')]).toEqual([
        200,
        'application/javascript; charset=utf-8',
      ]);
    } finally {
      await stack.stopApiProcess(compiled);
    }
  });

  it('sends a bot, follows it to active, shows the transcript live with speakers, stops it and plays the recording in step', async () => {
    const created = await stack.simulator.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'after', delaySeconds: 2 },
      participants: SCRIPT,
    });
    app = await openApp(browser, stack.api.baseUrl, { viewport: { width: 1280, height: 900 } });
    const { page } = app;
    await signIn(page, stack.user.key);

    await page.getByLabel('Meeting link').fill(created.url);
    await page.getByLabel('Bot name').fill('Web Notetaker');
    await page.getByLabel('Language').fill('en');
    await page.getByLabel("Record the meeting's audio").check();
    await page.getByRole('button', { name: 'Send bot' }).click();
    await page.getByText(`Bot sent to ${created.id}.`).waitFor();
    const row = page.locator('table.meetings tbody tr').filter({ hasText: created.id });
    await row.getByRole('link').click();

    // The status moves on the page by itself, through the lobby to active.
    const status = page.getByTestId('meeting-status');
    await expect.poll(() => status.textContent(), { timeout: 180_000, interval: 250 }).toMatch(/^active/);
    // The history is read again on each status event: it follows.
    await expect
      .poll(() => page.locator('.history li strong').allTextContents())
      .toEqual(['→ requested', '→ joining', '→ awaiting admission', '→ active']);

    // The transcript grows live, named after who spoke, in the order they spoke.
    await stack.simulator.waitForSpeechDone(created.id, { timeoutMs: 90_000 });
    const speakers = () => page.locator('.transcript-scroller li.segment .speaker').allTextContents();
    // (The recognizer may cut one utterance in two: who spoke, turn by turn.)
    const turns = async () => (await speakers()).filter((name, i, all) => name !== all[i - 1]);
    await expect
      .poll(turns, { timeout: 60_000 })
      .toEqual(['Alice Archer', 'Bob Baker', 'Alice Archer', 'Bob Baker']);
    const texts = await page.locator('.transcript-scroller li.segment .text').allTextContents();
    expect(texts.join(' ').toLowerCase()).toMatch(/quarterly|report|yesterday/);

    await page.getByRole('button', { name: 'Stop the bot' }).click();
    await expect.poll(() => status.textContent(), { timeout: 30_000 }).toMatch(/^completed/);

    // Once the bot has left, the recording is joined and the player appears.
    const audio = page.locator('audio');
    await audio.waitFor({ timeout: 120_000 });
    const transcript = await stack.api.request('GET', `/transcripts/google_meet/${created.id}`, {
      key: stack.user.key,
    });
    const detail = await stack.api.request('GET', `/meetings/${transcript.body.id}`, { key: stack.user.key });
    const recordingStart: number = detail.body.recordings[0].start;
    const segments: ShownSegment[] = transcript.body.segments.map(
      (segment: { start: number; end: number; speaker: string }, index: number) => ({ index, ...segment }),
    );
    expect(await page.locator('.transcript-scroller').getAttribute('data-segments')).toBe(
      String(segments.length),
    );

    // A click on Bob's first segment's time seeks there; playing on, the highlight moves to the next.
    await audio.evaluate((element: HTMLAudioElement) => {
      element.muted = true;
    });
    const bob = segments.findIndex((segment) => segment.speaker === 'Bob Baker');
    const second = segments[bob]!;
    const third = segments[bob + 1]!;
    await page
      .locator(`li.segment[data-index="${bob}"]`)
      .getByRole('button', { name: /^Play from / })
      .click();
    await expect.poll(() => audioTime(audio)).toBeGreaterThanOrEqual(second.start - recordingStart - 0.05);
    expect(await audioTime(audio)).toBeLessThan(second.end - recordingStart);
    expect(await highlighted(page)).toBe(bob);
    await expect.poll(() => highlighted(page), { timeout: 30_000, interval: 100 }).toBe(bob + 1);
    expect(await audioTime(audio)).toBeGreaterThanOrEqual(third.start - recordingStart - 0.3);
    // The highlighted segment is the one under the playhead.
    const playhead = (await audioTime(audio)) + recordingStart;
    expect(playhead).toBeGreaterThanOrEqual(third.start - 0.3);
    expect(playhead).toBeLessThanOrEqual(third.end + 0.3);
    await audio.evaluate((element: HTMLAudioElement) => element.pause());

    // The meeting page's screenshot for the README, named, the first segment highlighted, at rest.
    await page.getByLabel('Name').fill('Weekly review');
    await page.getByLabel('Participants').fill('Alice Archer, Bob Baker');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByRole('heading', { level: 1, name: 'Weekly review' }).waitFor();
    await page
      .locator(`li.segment[data-index="0"]`)
      .getByRole('button', { name: /^Play from / })
      .click();
    await audio.evaluate((element: HTMLAudioElement) => element.pause());
    await expect.poll(() => highlighted(page)).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    mkdirSync(new URL('.', `file://${SCREENSHOT}`).pathname, { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });

    expect(app.watch.foreignRequests).toEqual([]);
    expect(app.watch.policyViolations).toEqual([]);
    expect(app.watch.scriptErrors).toEqual([]);
    expect(app.watch.urls.filter((url) => url.includes(stack.user.key))).toEqual([]);
  });
});
