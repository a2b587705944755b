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

const MEET_SPEAKING = '[data-participant-id]:has([data-audio-level]:not([data-audio-level="0"]))';
const TIMEOUT = { timeout: 30_000 };

describe('simulator: Google Meet', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  async function fillNameAndAsk(page: Page, buttonName: 'Ask to join' | 'Join now'): Promise<void> {
    const join = page.getByRole('button', { name: buttonName, exact: true });
    await expect(join.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Your name').fill('Notetaker');
    await page.getByRole('button', { name: 'Turn off microphone' }).click();
    await page.getByRole('button', { name: 'Turn off camera' }).click();
    await join.click();
  }

  it('asks to join, waits in the lobby, is admitted, hears two people through 3 audio slots, and leaves', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'after', delaySeconds: 2 },
      participants: [
        { name: 'Alice Martin', utterances: [{ at: 1, text: SHORT_LINES.alice }] },
        { name: 'Bob Chen', utterances: [{ at: 1.5, text: SHORT_LINES.bob }] },
      ],
    });
    expect(meeting.url).toMatch(/\/[a-z]{3}-[a-z]{4}-[a-z]{3}$/);
    expect(meeting.bot.state).toBe('none');
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await fillNameAndAsk(page, 'Ask to join');

    await page.getByText('Asking to be let in…').waitFor(TIMEOUT);
    await page.getByText('You’ll join the call when someone lets you in').waitFor(TIMEOUT);
    await expect(page.getByRole('button', { name: 'Return to home screen' }).isVisible()).resolves.toBe(true);
    const inLobby = await client.getMeeting(meeting.id);
    expect(inLobby.bot).toMatchObject({ state: 'lobby', name: 'Notetaker', micOn: false, cameraOn: false });

    await page.locator('[data-self-name="Notetaker"]').waitFor(TIMEOUT);
    await startAudioProbe(page, { speakingSelector: MEET_SPEAKING, nameSelector: 'span' });
    await page.locator('[data-participant-id^="spaces/"]', { hasText: 'Alice Martin' }).waitFor(TIMEOUT);
    await expect(page.getByRole('button', { name: 'People - 3 joined' }).count()).resolves.toBe(1);

    const done = await client.waitForSpeechDone(meeting.id, { timeoutMs: 60_000 });
    expect(done.bot.state).toBe('in_call');
    for (const utterance of done.utterances) {
      expect(utterance.status).toBe('played');
      expect(utterance.beforeTracks).toBe(false);
      expect(Date.parse(utterance.endedAt!)).toBeGreaterThan(Date.parse(utterance.startedAt!));
      expect(Date.parse(utterance.startedAt!)).toBeGreaterThanOrEqual(Date.parse(done.bot.mediaStartedAt!));
    }
    // Overlapping speech lands on different slots: a slot is not a person.
    expect(new Set(done.utterances.map((u) => u.slot)).size).toBe(2);
    await expect(page.locator('body > audio').count()).resolves.toBe(3);

    const probe = await readAudioProbe(page);
    expect(probe.sources).toBe(3);
    expect(probe.peakRms).toBeGreaterThan(0.01);
    expect(probe.speakingWhileAudibleTicks).toBeGreaterThan(5);
    expect(probe.speakers.sort()).toEqual(['Alice Martin', 'Bob Chen']);

    await page.getByRole('button', { name: 'Leave call' }).click();
    await page.getByText('You left the meeting').waitFor(TIMEOUT);
    const left = await client.waitForBotState(meeting.id, 'left');
    expect(left.bot.leaveReason).toBe('leave_button');
    expect(Date.parse(left.bot.leftAt!)).toBeGreaterThan(Date.parse(left.bot.admittedAt!));
    await page.close();
  });

  it('is denied by the host', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({ platform: 'google_meet', admission: { policy: 'host' } });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await fillNameAndAsk(page, 'Ask to join');
    await page.getByText('Please wait until a meeting host brings you into the call').waitFor(TIMEOUT);
    await client.waitForBotState(meeting.id, 'lobby');
    const denied = await client.deny(meeting.id);
    expect(denied.bot.state).toBe('denied');
    await page.getByText('Someone in the call denied your request to join').waitFor(TIMEOUT);
    await page.close();
  });

  it('joins an open meeting straight away, then is removed; the meeting ends for a second bot', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({ platform: 'google_meet', admission: { policy: 'open' } });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await expect(page.getByRole('button', { name: 'Ask to join' }).count()).resolves.toBe(0);
    await fillNameAndAsk(page, 'Join now');
    const first = await client.waitForBotState(meeting.id, 'in_call');
    await client.removeBot(meeting.id);
    await page.getByText("You've been removed from the meeting").waitFor(TIMEOUT);

    const again = await browser.newPage();
    await again.goto(meeting.url);
    await fillNameAndAsk(again, 'Join now');
    await client.waitFor(
      meeting.id,
      (m) => m.bot.state === 'in_call' && m.bot.sessionId !== first.bot.sessionId,
      'the second page in the call',
    );
    const ended = await client.endMeeting(meeting.id);
    expect(ended.bot.state).toBe('ended');
    await again.getByText('Your host ended the meeting for everyone').waitFor(TIMEOUT);
    await page.close();
    await again.close();
  });

  it('keeps the ended screen when Escape is pressed after the meeting ended with the More options menu open', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({ platform: 'google_meet', admission: { policy: 'open' } });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await fillNameAndAsk(page, 'Join now');
    await client.waitForBotState(meeting.id, 'in_call');
    await page.getByRole('button', { name: 'More options' }).click();
    await page.getByRole('menuitem', { name: 'Settings' }).waitFor(TIMEOUT);
    await client.endMeeting(meeting.id);
    await page.getByText('Your host ended the meeting for everyone').waitFor(TIMEOUT);
    // A bot closing what it had open (as the audio-only setting does) must not bring the call back.
    await page.keyboard.press('Escape');
    await page.waitForTimeout(300);
    await expect(page.getByText('Your host ended the meeting for everyone').count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'Leave call' }).count()).resolves.toBe(0);
    await page.close();
  });

  it('holds media behind the recording dialog, then delivers one late mixed track without <audio> elements', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'open' },
      audio: { mode: 'mixed', trackDelaySeconds: 1 },
      traps: { recordingDialog: true, sharedControls: true },
      participants: [{ name: 'Alice Martin', utterances: [{ at: 2, text: SHORT_LINES.alice }] }],
    });
    const page = await browser.newPage();
    await hookRemoteTracks(page);
    await page.goto(meeting.url);
    await fillNameAndAsk(page, 'Join now');
    const dialog = page.getByRole('dialog', { name: 'This video call is being recorded' });
    await dialog.waitFor(TIMEOUT);
    // The trap: the call's toolbar is already there behind the dialog, but no media flows.
    await expect(page.getByRole('button', { name: 'Leave call' }).count()).resolves.toBe(1);
    const held = await client.getMeeting(meeting.id);
    expect(held.bot.state).toBe('admitted');
    expect(held.bot.mediaStartedAt).toBeNull();

    await startAudioProbe(page, { speakingSelector: MEET_SPEAKING, nameSelector: 'span' });
    await dialog.getByRole('button', { name: 'Join now' }).click();
    const done = await client.waitForSpeechDone(meeting.id, { timeoutMs: 60_000 });
    expect(done.utterances[0]!.status).toBe('played');
    expect(done.utterances[0]!.slot).toBeNull();
    await expect(page.locator('audio').count()).resolves.toBe(0);
    const probe = await readAudioProbe(page);
    expect(done.bot.audioTransport).not.toBeNull();
    // Without a network interface ICE can't connect and the page plays WebAudio streams instead.
    if (done.bot.audioTransport === 'rtc-loopback') {
      expect(probe.sources).toBe(1);
      expect(probe.peakRms).toBeGreaterThan(0.01);
      expect(probe.speakingWhileAudibleTicks).toBeGreaterThan(5);
    }
    expect(probe.speakers).toEqual(['Alice Martin']);

    await page.close();
    const gone = await client.waitForBotState(meeting.id, 'left');
    expect(gone.bot.leaveReason).toBe('page_closed');
  });

  it('shows call controls in the lobby without admitting, and times out', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'host', timeoutSeconds: 2 },
      traps: { sharedControls: true },
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await fillNameAndAsk(page, 'Ask to join');
    await page.getByText('Asking to be let in…').waitFor(TIMEOUT);
    // The trap: what looks like being in the call is there while waiting.
    await expect(page.getByRole('button', { name: 'Leave call' }).count()).resolves.toBe(1);
    await expect(page.locator('[data-participant-id]').count()).resolves.toBe(1);
    expect((await client.getMeeting(meeting.id)).bot.state).toBe('lobby');
    await page.getByText('No one responded to your request to join the call').waitFor(TIMEOUT);
    expect((await client.getMeeting(meeting.id)).bot.state).toBe('timed_out');
    await page.getByRole('button', { name: 'Ask to join again' }).click();
    await client.waitForBotState(meeting.id, 'lobby');
    await page.getByRole('button', { name: 'Return to home screen' }).click();
    const left = await client.waitForBotState(meeting.id, 'left');
    expect(left.bot.leaveReason).toBe('return_home');
    await page.close();
  });

  it('hides the toolbar when the pointer is idle and turns the mic back on after admission', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'open' },
      // Long enough for a loaded machine to read and press a shown button before it hides again.
      traps: { toolbarAutoHideSeconds: 4, resetTogglesOnAdmission: true },
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await fillNameAndAsk(page, 'Join now');
    // The page reports its toggles after the state change, hence a wait rather than one read.
    await client.waitFor(
      meeting.id,
      (m) => m.bot.state === 'in_call' && m.bot.micOn === true,
      'the mic back on',
    );
    // Pointer activity shows the toolbar (it may have hidden while the state was read).
    await page.mouse.move(120, 120);
    await expect(
      page.getByRole('button', { name: 'Turn off microphone' }).getAttribute('data-is-muted'),
    ).resolves.toBe('false');
    const leave = page.getByRole('button', { name: 'Leave call' });
    await leave.waitFor({ state: 'hidden', timeout: 30_000 });
    await page.mouse.move(200, 200);
    await leave.click({ timeout: 30_000 });
    expect((await client.waitForBotState(meeting.id, 'left')).bot.leaveReason).toBe('leave_button');
    await page.close();
  });

  it('puts interstitial dialogs before the form, uses a join-button variant, and can block the join', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'blocked' },
      traps: { interstitials: true, joinButtonLabel: 'Join here too' },
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await page.getByRole('button', { name: 'Continue without microphone and camera' }).click();
    await page.getByRole('button', { name: 'Got it' }).click();
    await expect(
      page.getByRole('button', { name: 'Turn on microphone' }).getAttribute('data-is-muted'),
    ).resolves.toBe('true');
    await page.getByLabel('Your name').fill('Notetaker');
    await page.getByRole('button', { name: 'Join here too' }).click();
    await page.getByText("You can't join this video call").waitFor(TIMEOUT);
    const blocked = await client.getMeeting(meeting.id);
    expect(blocked.bot).toMatchObject({ state: 'blocked', micOn: false, cameraOn: false });
    await page.close();
  });

  it('shows the not-found screens for unknown and malformed codes', async () => {
    const { browser, simulator } = harness;
    const page = await browser.newPage();
    await page.goto(`${simulator.url}/zzz-zzzz-zzz`);
    await page.getByText('Check your meeting code').waitFor(TIMEOUT);
    await page.goto(`${simulator.url}/not-a-code`);
    await page.getByText('Invalid video call name.').waitFor(TIMEOUT);
    await page.close();
  });
  it('shows a German meeting in German unless the URL asks for English (hl=en); ignoreLanguageHints keeps German', async () => {
    const { client, browser } = harness;
    const german = () =>
      client.createMeeting({
        platform: 'google_meet',
        admission: { policy: 'after', delaySeconds: 1 },
        traps: { locale: 'de' },
        participants: [{ name: 'Alice Martin' }],
      });
    // A German browser, no hl: the whole way through in German.
    const context = await browser.newContext({ locale: 'de-DE' });
    const meeting = await german();
    const page = await context.newPage();
    await page.goto(meeting.url);
    await page.getByText('Wie heißen Sie?').waitFor(TIMEOUT);
    await page.getByLabel('Ihr Name').fill('Notetaker');
    await page.getByRole('button', { name: 'Mikrofon deaktivieren' }).click();
    await page.getByRole('button', { name: 'Kamera deaktivieren' }).click();
    await page.getByRole('button', { name: 'Teilnahme anfordern', exact: true }).click();
    await page.getByText('Teilnahme wird angefragt…').waitFor(TIMEOUT);
    await client.waitForBotState(meeting.id, 'in_call');
    await expect(page.getByRole('button', { name: 'Personen - 2 Teilnehmer' }).count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Anruf verlassen', exact: true }).click();
    await page.getByText('Sie haben die Besprechung verlassen').waitFor(TIMEOUT);
    const left = await client.waitForBotState(meeting.id, 'left');
    expect(left.bot).toMatchObject({
      name: 'Notetaker',
      micOn: false,
      cameraOn: false,
      leaveReason: 'leave_button',
    });
    await context.close();

    // hl=en on the URL: English, whatever the browser's language.
    const asksEnglish = await browser.newContext({ locale: 'de-DE' });
    const english = await asksEnglish.newPage();
    await english.goto(`${(await german()).url}?hl=en`);
    await english.getByRole('button', { name: 'Ask to join', exact: true }).waitFor(TIMEOUT);
    await expect(english.getByLabel('Your name').count()).resolves.toBe(1);
    await expect(english.getByText('Teilnahme anfordern').count()).resolves.toBe(0);

    // ignoreLanguageHints: German even when the URL asks for English.
    const stubborn = await client.createMeeting({
      platform: 'google_meet',
      traps: { locale: 'de', ignoreLanguageHints: true },
    });
    const still = await asksEnglish.newPage();
    await still.goto(`${stubborn.url}?hl=en`);
    await still.getByRole('button', { name: 'Teilnahme anfordern', exact: true }).waitFor(TIMEOUT);
    await asksEnglish.close();
  });
});
