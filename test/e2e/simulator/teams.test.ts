import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Harness,
  hookRemoteTracks,
  readAudioProbe,
  SHORT_LINES,
  startAudioProbe,
  startHarness,
} from './harness.js';

const TEAMS_SPEAKING =
  '[data-stream-type="Video"]:has([data-tid="voice-level-stream-outline"].vdi-frame-occlusion)';
const TIMEOUT = { timeout: 30_000 };

describe('simulator: Microsoft Teams', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function continueAndFillName(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Continue on this browser' }).click();
    await page.locator('[data-tid="prejoin-display-name-input"]').fill('Notetaker');
  }

  async function turnOffMicAndCamera(page: Page): Promise<void> {
    await page.locator('[data-tid="toggle-mute"]').click();
    await page.locator('[data-tid="toggle-video"]').click();
    await expect(page.locator('[data-tid="toggle-mute"]').getAttribute('aria-checked')).resolves.toBe(
      'false',
    );
  }

  it('passes the no-audio modal, waits in the lobby, is admitted by the host, hears the mixed track, and hangs up', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'teams',
      admission: { policy: 'host' },
      traps: { noAudioVideoModal: true, leaveConfirmation: true },
      participants: [
        { name: 'Alice Martin', utterances: [{ at: 1, text: SHORT_LINES.alice }] },
        { name: 'Bob Chen', joinAt: 1, utterances: [{ at: 4.5, text: SHORT_LINES.bob }] },
      ],
    });
    expect(meeting.url).toMatch(/\/meet\/[0-9]+\?p=/);
    const page = await browser.newPage();
    await hookRemoteTracks(page);
    await page.goto(meeting.url);
    await continueAndFillName(page);
    await turnOffMicAndCamera(page);
    const joinButton = page.locator('[data-tid="prejoin-join-button"]');
    await joinButton.click();

    const modal = page.getByRole('dialog', { name: "Are you sure you don't want audio or video?" });
    await modal.waitFor(TIMEOUT);
    await expect(joinButton.isVisible()).resolves.toBe(true);
    await expect(client.getMeeting(meeting.id).then((m) => m.bot.state)).resolves.toBe('prejoin');
    await modal.getByRole('button', { name: 'Continue without audio or video' }).click();

    await page.getByText('Someone will let you in shortly').waitFor(TIMEOUT);
    await expect(joinButton.isDisabled()).resolves.toBe(true);
    await client.waitForBotState(meeting.id, 'lobby');
    await startAudioProbe(page, { speakingSelector: TEAMS_SPEAKING });
    await client.admit(meeting.id);

    await page.locator('#hangup-button[data-tid="hangup-main-btn"][aria-label="Leave"]').waitFor(TIMEOUT);
    await page
      .locator('[data-stream-type="Video"][data-tid="Alice Martin"] [data-tid="voice-level-stream-outline"]')
      .waitFor(TIMEOUT);
    await expect(page.getByText('Someone will let you in shortly').count()).resolves.toBe(0);
    await page.locator('[data-stream-type="Video"][data-tid="Bob Chen"]').waitFor(TIMEOUT);

    const done = await client.waitForSpeechDone(meeting.id, { timeoutMs: 60_000 });
    expect(done.utterances.map((u) => u.status)).toEqual(['played', 'played']);
    expect(done.participants.every((p) => p.present)).toBe(true);
    const probe = await readAudioProbe(page);
    expect(probe.speakers.sort()).toEqual(['Alice Martin', 'Bob Chen']);
    expect(done.bot.audioTransport).not.toBeNull();
    if (done.bot.audioTransport === 'rtc-loopback') {
      // One mixed track, named the way Teams names it, heard from the RTCPeerConnection.
      const streamIds = await page.evaluate(
        () => (window as unknown as { __remoteStreamIds: string[] }).__remoteStreamIds,
      );
      expect(streamIds).toHaveLength(1);
      expect(streamIds[0]).toMatch(/^mainAudio/);
      expect(probe.peakRms).toBeGreaterThan(0.01);
      expect(probe.speakingWhileAudibleTicks).toBeGreaterThan(5);
    }

    await page.locator('#hangup-button').click();
    await page.getByRole('dialog').getByRole('button', { name: 'Leave' }).click();
    const left = await client.waitForBotState(meeting.id, 'left');
    expect(left.bot.leaveReason).toBe('leave_button');
    await page.close();
  });

  it('refuses a wrong passcode and an unknown meeting', async () => {
    const { client, browser, simulator } = harness;
    const meeting = await client.createMeeting({ platform: 'teams', passcode: 'Right1' });
    const page = await browser.newPage();
    await page.goto(`${simulator.url}/meet/${meeting.id}?p=Wrong1`);
    await page.getByRole('button', { name: 'Continue on this browser' }).click();
    await page.getByText("Sorry, we couldn't connect you").waitFor(TIMEOUT);
    await page.goto(`${simulator.url}/meet/999999999999?p=Right1`);
    await page.getByRole('button', { name: 'Continue on this browser' }).click();
    await page.getByText('Looks like the meeting URL is incorrect').waitFor(TIMEOUT);
    expect((await client.getMeeting(meeting.id)).bot.state).toBe('none');
    await page.close();
  });

  it('reloads mid-join, then the bot is denied', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'teams',
      admission: { policy: 'deny', delaySeconds: 1 },
      traps: { midJoinReload: true },
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await continueAndFillName(page);
    await page.waitForURL(/\/light-meetings\/launch\?.*anon=true/, TIMEOUT);
    const nameField = page.locator('[data-tid="prejoin-display-name-input"]');
    await nameField.waitFor(TIMEOUT);
    await expect(nameField.inputValue()).resolves.toBe('');
    await nameField.fill('Notetaker');
    await page.locator('[data-tid="prejoin-join-button"]').click();
    await page.getByText('Sorry, but you were denied access to the meeting.').waitFor(TIMEOUT);
    await page.locator('[data-tid="calling-retry-cancelbutton"]').waitFor(TIMEOUT);
    const denied = await client.getMeeting(meeting.id);
    expect(denied.bot.state).toBe('denied');
    // The reload kept the same session: one bot, never "left".
    expect(denied.bot.history.map((h) => h.state)).toEqual(['prejoin', 'lobby', 'denied']);
    await page.close();
  });

  it('is removed, rejoins, and sees the meeting end', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'teams',
      admission: { policy: 'after', delaySeconds: 0.5 },
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await continueAndFillName(page);
    await page.locator('[data-tid="prejoin-join-button"]').click();
    await page.getByText("You're the only one here").waitFor(TIMEOUT);
    await client.removeBot(meeting.id);
    const title = page.locator('#calling-retry-screen-title');
    await title.getByText("You've been removed from this meeting").waitFor(TIMEOUT);

    await page.getByRole('button', { name: 'Rejoin' }).click();
    await client.waitForBotState(meeting.id, 'in_call');
    await client.endMeeting(meeting.id);
    await page.getByText('Meeting ended').waitFor(TIMEOUT);
    const ended = await client.getMeeting(meeting.id);
    expect(ended.status).toBe('ended');
    expect(ended.bot.history.map((h) => h.state)).toEqual([
      'prejoin',
      'lobby',
      'in_call',
      'removed',
      'lobby',
      'in_call',
      'ended',
    ]);
    await page.close();
  });

  it('is left alone when everyone leaves, then the host ends the meeting on schedule', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'teams',
      admission: { policy: 'open' },
      participants: [{ name: 'Alice Martin' }, { name: 'Late Larry', joinAt: 30 }],
      endAt: 12,
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await continueAndFillName(page);
    await page.locator('[data-tid="prejoin-join-button"]').click();
    await page.locator('[data-stream-type="Video"][data-tid="Alice Martin"]').waitFor(TIMEOUT);
    const alone = await client.everyoneLeaves(meeting.id);
    expect(alone.participants.map((p) => p.present)).toEqual([false, false]);
    await page.getByText("You're the only one here").waitFor(TIMEOUT);
    await page.getByText('Meeting ended').waitFor(TIMEOUT);
    const ended = await client.getMeeting(meeting.id);
    expect(ended.status).toBe('ended');
    expect(ended.bot.state).toBe('ended');
    // Late Larry never came: nobody joins after everyone left.
    expect(ended.participants[1]!.joinedAt).toBeNull();
    await page.close();
  });
  it("shows a German meeting in German unless the browser's language is English; ignoreLanguageHints keeps German", async () => {
    const { client, browser } = harness;
    const german = (traps = {}) =>
      client.createMeeting({
        platform: 'teams',
        admission: { policy: 'host' },
        traps: { locale: 'de', ...traps },
        participants: [{ name: 'Alice Martin' }],
      });
    // A German browser: the whole way through in German.
    const context = await browser.newContext({ locale: 'de-DE' });
    const meeting = await german();
    const page = await context.newPage();
    await page.goto(meeting.url);
    await page.getByRole('button', { name: 'In diesem Browser fortfahren' }).click();
    await page.getByPlaceholder('Geben Sie Ihren Namen ein').fill('Notetaker');
    await turnOffMicAndCamera(page);
    await expect(page.locator('[data-tid="toggle-mute"]').getAttribute('aria-label')).resolves.toBe(
      'Mikrofon',
    );
    const join = page.locator('[data-tid="prejoin-join-button"]');
    await expect(join.textContent()).resolves.toBe('Jetzt teilnehmen');
    await join.click();
    await page.getByText('Jemand wird Sie in Kürze einlassen').waitFor(TIMEOUT);
    await client.waitForBotState(meeting.id, 'lobby');
    await client.admit(meeting.id);
    await page.locator('[data-stream-type="Video"][data-tid="Alice Martin"]').waitFor(TIMEOUT);
    await page.getByRole('button', { name: 'Verlassen', exact: true }).click();
    await page.getByText('Sie haben die Besprechung verlassen').waitFor(TIMEOUT);
    const left = await client.waitForBotState(meeting.id, 'left');
    expect(left.bot).toMatchObject({
      name: 'Notetaker',
      micOn: false,
      cameraOn: false,
      leaveReason: 'leave_button',
    });
    await context.close();

    // An English browser (navigator.language en-US): English.
    const englishBrowser = await browser.newContext({ locale: 'en-US' });
    const english = await englishBrowser.newPage();
    await english.goto((await german()).url);
    await english.getByRole('button', { name: 'Continue on this browser' }).waitFor(TIMEOUT);
    await expect(english.getByText('In diesem Browser fortfahren').count()).resolves.toBe(0);

    // ignoreLanguageHints: German in an English browser too.
    const still = await englishBrowser.newPage();
    await still.goto((await german({ ignoreLanguageHints: true })).url);
    await still.getByRole('button', { name: 'In diesem Browser fortfahren' }).waitFor(TIMEOUT);
    await englishBrowser.close();
  });
});
