import type { Page } from 'playwright-core';
import type { Logger } from '../../shared/infra/logger.js';
import type { Observation, PlatformDriver } from './driver.js';
import {
  buttonsByText,
  clickButton,
  clickFirstVisible,
  joinPress,
  pressLeave,
  setToggle,
  waitForToggle,
  waitUntilOut,
} from './page-actions.js';
import { ZOOM_SELF_GLOBAL, ZOOM_SPEAKING_SCRIPT } from './speaking-scripts.js';
import { ZoomChat } from './zoom-chat.js';
import {
  observeZoom,
  ZOOM_CAMERA_OFF,
  ZOOM_CAMERA_ON,
  ZOOM_CONTINUE_WITHOUT_DEVICES,
  ZOOM_EVIDENCE_SCRIPT,
  ZOOM_JOIN_AUDIO_BY_COMPUTER,
  ZOOM_JOIN_FROM_BROWSER,
  ZOOM_LEAVE,
  ZOOM_LEAVE_MEETING,
  ZOOM_MIC_OFF,
  ZOOM_MIC_ON,
  ZOOM_PREVIEW_CAMERA_IS_ON,
  ZOOM_PREVIEW_MIC_IS_ON,
  type ZoomPage,
} from './zoom-screens.js';

/**
 * Zoom's web client. The invitation link's landing page leads to the web client through "Join from
 * your browser"; the form takes the name (and the passcode, from the link's pwd, when the meeting
 * asks for it), the preview's microphone and video go off, and Join asks. After admission the
 * "Join Audio" dialog is answered with "Join Audio by Computer": only then does the page play the
 * meeting's audio. The chat goes through the footer's chat panel (`zoom-chat.ts`).
 */
export class ZoomDriver implements PlatformDriver {
  readonly platform = 'zoom' as const;
  readonly speakingScript = ZOOM_SPEAKING_SCRIPT;
  private botName = '';
  /** The passcode typed into the form, so "Passcode wrong" after it is the meeting refusing it. */
  private passcodeTyped = false;

  readonly chat: ZoomChat;

  constructor(
    private readonly page: Page,
    private readonly log: Logger,
  ) {
    this.chat = new ZoomChat(page, log.child({ component: 'chat' }));
  }

  async open(url: string): Promise<void> {
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  }

  private read(): Promise<ZoomPage> {
    return this.page.evaluate(ZOOM_EVIDENCE_SCRIPT) as Promise<ZoomPage>;
  }

  async prepareStep(name: string): Promise<string | null> {
    this.botName = name;
    // The speaking script leaves the bot's own tile out by this name.
    await this.page
      .evaluate(([key, value]) => Object.assign(window, { [key]: value }), [ZOOM_SELF_GLOBAL, name] as const)
      .catch(() => {});
    const { evidence, zoom } = await this.read();
    if (await clickFirstVisible(buttonsByText(this.page, ZOOM_CONTINUE_WITHOUT_DEVICES)))
      return 'continued without microphone and camera';
    const onForm = zoom.nameField?.visible || zoom.joinButton?.visible || zoom.passcodeField?.visible;
    if (
      !onForm &&
      evidence.controls.some((c) => c.visible && ZOOM_JOIN_FROM_BROWSER.includes(c.text as never))
    ) {
      if (await clickFirstVisible(buttonsByText(this.page, ZOOM_JOIN_FROM_BROWSER)))
        return 'chose "Join from your browser"';
    }
    if (zoom.nameField?.visible && !zoom.nameField.disabled && zoom.nameField.value !== name) {
      await this.page.locator('#input-for-name').fill(name, { timeout: 5000 });
      return 'entered the name';
    }
    if (zoom.passcodeField?.visible && zoom.passcodeField.value === '') {
      const passcode = new URL(this.page.url()).searchParams.get('pwd');
      if (passcode) {
        await this.page.locator('#input-for-pwd').fill(passcode, { timeout: 5000 });
        this.passcodeTyped = true;
        return 'entered the passcode';
      }
    }
    if (zoom.previewMic !== null && (ZOOM_PREVIEW_MIC_IS_ON as readonly string[]).includes(zoom.previewMic)) {
      if (await clickFirstVisible(this.page.locator('#preview-audio-control-button')))
        return 'muted the microphone';
    }
    if (
      zoom.previewCamera !== null &&
      (ZOOM_PREVIEW_CAMERA_IS_ON as readonly string[]).includes(zoom.previewCamera)
    ) {
      if (await clickFirstVisible(this.page.locator('#preview-video-control-button')))
        return 'stopped the video';
    }
    if (zoom.joinButton?.visible && !zoom.joinButton.disabled) {
      if (
        await clickFirstVisible(
          this.page.locator('button.preview-join-button'),
          joinPress(evidence, this.log),
        )
      ) {
        this.log.info(
          { microphone: zoom.previewMic, camera: zoom.previewCamera },
          'joining with the preview as read',
        );
        return 'pressed "Join"';
      }
    }
    return null;
  }

  async observe(): Promise<Observation> {
    return observeZoom(await this.read(), this.botName, this.passcodeTyped);
  }

  async answerDialog(): Promise<string | null> {
    if (await clickFirstVisible(buttonsByText(this.page, ZOOM_JOIN_AUDIO_BY_COMPUTER)))
      return 'joined audio by computer';
    if (await clickFirstVisible(buttonsByText(this.page, ZOOM_CONTINUE_WITHOUT_DEVICES)))
      return 'continued without microphone and camera';
    return null;
  }

  async ensureMuted(): Promise<void> {
    const { zoom } = await this.read();
    if (zoom.footerAudio !== null && (ZOOM_MIC_OFF as readonly string[]).includes(zoom.footerAudio)) {
      if (await clickFirstVisible(this.page.locator('button.join-audio-container__btn'))) {
        this.log.info('microphone was on; turned it off');
        // Wait until the page shows it, so speech asked for right after reads the new state (as setToggle does).
        await waitForToggle(this.page, ZOOM_MIC_ON);
      }
    }
  }

  setMicrophone(on: boolean): Promise<boolean> {
    return this.toggle(on ? [ZOOM_MIC_ON, ZOOM_MIC_OFF] : [ZOOM_MIC_OFF, ZOOM_MIC_ON]);
  }

  setCamera(on: boolean): Promise<boolean> {
    return this.toggle(on ? [ZOOM_CAMERA_ON, ZOOM_CAMERA_OFF] : [ZOOM_CAMERA_OFF, ZOOM_CAMERA_ON]);
  }

  private toggle([press, shownWhenDone]: readonly [readonly string[], readonly string[]]): Promise<boolean> {
    return setToggle(this.page, press, shownWhenDone);
  }

  async leave(): Promise<void> {
    const { screen } = await this.observe();
    if (screen.kind === 'lobby') {
      // The waiting room's (and the not-started screen's) Leave.
      if (
        !(await clickFirstVisible(this.page.locator('button.leave-btn'))) &&
        !(await clickButton(this.page, ZOOM_LEAVE))
      ) {
        this.log.warn('no way out of the waiting room found');
        return;
      }
      if (!(await waitUntilOut({ observe: () => this.observe() })))
        this.log.warn('the page still shows the waiting room after leaving');
      return;
    }
    if (!(await pressLeave(this.page, ZOOM_LEAVE))) {
      this.log.warn('no Leave button found');
      return;
    }
    const out = await waitUntilOut({
      observe: () => this.observe(),
      // Leave opens a menu whose "Leave Meeting" leaves.
      confirm: async () =>
        (await clickButton(this.page, ZOOM_LEAVE_MEETING)) ||
        (await clickFirstVisible(buttonsByText(this.page, ZOOM_LEAVE_MEETING))),
    });
    if (!out) this.log.warn('the page still shows the call after leaving (no "Leave Meeting" worked)');
  }
}
