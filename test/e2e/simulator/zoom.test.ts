import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinZoom } from '../../support/simulator-page.js';
import {
  type Harness,
  hookRemoteTracks,
  readAudioProbe,
  SHORT_LINES,
  startAudioProbe,
  startHarness,
} from './harness.js';

/** The speaker bar's tile of whoever is talking now (its `--active` modifier). */
const ZOOM_SPEAKING = '.speaker-bar-container__video-frame--active';
const TIMEOUT = { timeout: 30_000 };

describe('simulator: Zoom', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('goes from the landing page to the web client, asks for the passcode, waits for the host and in the waiting room, joins audio by computer, hears one mixed track with the active speaker shown, and leaves', async () => {
    const { client, browser, simulator } = harness;
    const meeting = await client.createMeeting({
      platform: 'zoom',
      passcode: 'Zm42pass',
      admission: { policy: 'host' },
      traps: { hostStartsAfterSeconds: 1, joinAudioDialog: true, participantsPanelOpen: true },
      participants: [
        { name: 'Alice Martin', utterances: [{ at: 1, text: SHORT_LINES.alice }] },
        { name: 'Bob Chen', utterances: [{ at: 4.5, text: SHORT_LINES.bob }] },
      ],
    });
    expect(meeting.url).toMatch(/\/j\/[0-9]{11}\?pwd=Zm42pass$/);
    const page = await browser.newPage();
    await hookRemoteTracks(page);
    // The link without its pwd: the web client asks for the passcode on its form.
    await page.goto(`${simulator.url}/j/${meeting.id}`);
    await page.getByRole('button', { name: 'Join from your browser' }).click();
    await page.waitForURL(new RegExp(`/wc/${meeting.id}/join$`), TIMEOUT);
    await page.locator('#input-for-name').fill('Notetaker');
    await page.locator('#input-for-pwd').fill('wrong1');
    await page.locator('#preview-audio-control-button[aria-label="Mute"]').click();
    await page.locator('#preview-video-control-button[aria-label="Stop Video"]').click();
    await page.locator('button.preview-join-button').click();
    await page.getByText('Passcode wrong').waitFor(TIMEOUT);
    await page.locator('#input-for-pwd').fill('Zm42pass');
    await page.locator('button.preview-join-button').click();

    await page.getByText('Waiting for the host to start this meeting').waitFor(TIMEOUT);
    await expect(client.getMeeting(meeting.id).then((m) => m.bot.state)).resolves.toBe('prejoin');
    await page.getByText('Please wait, the meeting host will let you in soon.').waitFor(TIMEOUT);
    const lobby = await client.waitForBotState(meeting.id, 'lobby');
    expect(lobby.bot).toMatchObject({ name: 'Notetaker', micOn: false, cameraOn: false });
    await startAudioProbe(page, {
      speakingSelector: ZOOM_SPEAKING,
      nameSelector: '.video-avatar__avatar-footer span',
    });
    await client.admit(meeting.id);

    const dialog = page.getByRole('dialog', { name: 'Join Audio' });
    await dialog.waitFor(TIMEOUT);
    expect((await client.getMeeting(meeting.id)).bot.state).toBe('admitted');
    await dialog.getByRole('button', { name: 'Join Audio by Computer' }).click();
    await client.waitForBotState(meeting.id, 'in_call');
    await page
      .locator('button.join-audio-container__btn[aria-label="unmute my microphone"]')
      .waitFor(TIMEOUT);
    await page.locator('button.send-video-container__btn[aria-label="start my video"]').waitFor(TIMEOUT);
    await page.locator('button[aria-label="Leave"]').waitFor(TIMEOUT);
    await expect(page.locator('.participants-item__display-name').allTextContents()).resolves.toEqual([
      'Notetaker',
      'Alice Martin',
      'Bob Chen',
    ]);

    const active = page.locator('.speaker-active-container__video-frame .video-avatar__avatar-footer span');
    await active.getByText('Alice Martin').waitFor(TIMEOUT);
    await active.getByText('Bob Chen').waitFor(TIMEOUT);
    const done = await client.waitForSpeechDone(meeting.id, { timeoutMs: 60_000 });
    expect(done.utterances.map((u) => u.status)).toEqual(['played', 'played']);
    // The large video keeps the last person heard after they stop.
    await expect(active.textContent()).resolves.toBe('Bob Chen');
    const probe = await readAudioProbe(page);
    expect(probe.speakers.sort()).toEqual(['Alice Martin', 'Bob Chen']);
    if (done.bot.audioTransport === 'rtc-loopback') {
      const streamIds = await page.evaluate(
        () => (window as unknown as { __remoteStreamIds: string[] }).__remoteStreamIds,
      );
      expect(streamIds).toHaveLength(1);
      expect(probe.peakRms).toBeGreaterThan(0.01);
    }

    await page.locator('button[aria-label="Leave"]').click();
    await page.getByRole('button', { name: 'Leave Meeting' }).click();
    const left = await client.waitForBotState(meeting.id, 'left');
    expect(left.bot.leaveReason).toBe('leave_button');
    await page.close();
  });

  it('says an unknown meeting id is not valid, asks a guest of a sign-in-only meeting to sign in, and shows removal and the end', async () => {
    const { client, browser, simulator } = harness;
    const page = await browser.newPage();
    await page.goto(`${simulator.url}/wc/98765432101/join`);
    await page.getByText('This meeting ID is not valid. Please check and try again.').waitFor(TIMEOUT);

    const signInOnly = await client.createMeeting({ platform: 'zoom', access: { signedInOnly: true } });
    await page.goto(`${simulator.url}/wc/${signInOnly.id}/join`);
    await page.getByText('Sign in to join this meeting').waitFor(TIMEOUT);
    await expect(page.locator('#input-for-name').count()).resolves.toBe(0);

    const meeting = await client.createMeeting({ platform: 'zoom', admission: { policy: 'open' } });
    await page.goto(meeting.url);
    await joinZoom(page);
    await client.waitForBotState(meeting.id, 'in_call');
    await client.removeBot(meeting.id);
    await page
      .locator('.zm-modal-body-title')
      .getByText('You have been removed from this meeting by the host')
      .waitFor(TIMEOUT);
    await page.close();
    // A new tab joins again (straight to the web client) and sees the host end the meeting.
    const again = await browser.newPage();
    await again.goto(meeting.url.replace(/\/j\/([0-9]+)/, '/wc/$1/join'));
    await again.locator('#input-for-name').fill('Notetaker');
    await again.locator('button.preview-join-button').click();
    await client.waitForBotState(meeting.id, 'in_call');
    await client.endMeeting(meeting.id);
    await again
      .locator('.zm-modal-body-title')
      .getByText('This meeting has been ended by host')
      .waitFor(TIMEOUT);
    await again.close();
  });

  it('shows a German meeting in German when the page ignores the browser language', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'zoom',
      admission: { policy: 'host' },
      traps: { locale: 'de', ignoreLanguageHints: true },
    });
    const page = await browser.newPage();
    await page.goto(meeting.url.replace(/\/j\/([0-9]+)/, '/wc/$1/join'));
    await page.getByRole('heading', { name: 'Meeting beitreten' }).waitFor(TIMEOUT);
    await page.getByPlaceholder('Ihr Name').fill('Notetaker');
    await page.getByRole('button', { name: 'Beitreten' }).click();
    await page.getByText('Bitte warten, der Meeting-Host lässt Sie gleich eintreten.').waitFor(TIMEOUT);
    await page.close();
  });
});
