import type { Page } from 'playwright-core';
import type { Logger } from '../../shared/infra/logger.js';
import { setMeetAudioOnly } from './google-meet-audio-only.js';
import type { Observation, PlatformDriver } from './driver.js';
import { findControl } from './evidence.js';
import { GoogleMeetChat } from './google-meet-chat.js';
import {
  isMeetNameField,
  MEET_CAMERA_OFF,
  MEET_CAMERA_ON,
  MEET_DIALOG_ANSWERS,
  MEET_INTERSTITIAL_BUTTONS,
  MEET_JOIN_BUTTONS,
  MEET_LEAVE_CALL,
  MEET_LEAVE_CONFIRM,
  MEET_LEAVE_LOBBY,
  MEET_MIC_OFF,
  MEET_MIC_ON,
  MEET_NAME_LABELS,
  type MeetJoinProgress,
  observeMeet,
  withEnglishUi,
} from './google-meet-screens.js';
import {
  accessibleName,
  clickButton,
  clickFirstVisible,
  joinPress,
  pressLeave,
  readEvidence,
  setToggle,
  waitForToggle,
  waitUntilOut,
  wakeToolbar,
} from './page-actions.js';
import { MEET_SPEAKING_SCRIPT } from './speaking-scripts.js';

const DIALOG_SELECTOR = '[role=dialog], [role=alertdialog], dialog[open]';
/** Material dialogs' confirm button, whatever its label says (the recording-consent dialog's "Join now"). */
const DIALOG_CONFIRM = '[data-mdc-dialog-action="ok"]';

export class GoogleMeetDriver implements PlatformDriver {
  readonly platform = 'google_meet' as const;
  readonly speakingScript = MEET_SPEAKING_SCRIPT;
  private readonly progress: MeetJoinProgress = { asked: false, inCall: false, leaving: false };
  private botName = '';

  readonly chat: GoogleMeetChat;

  constructor(
    private readonly page: Page,
    private readonly log: Logger,
  ) {
    this.chat = new GoogleMeetChat(page, log.child({ component: 'chat' }));
  }

  /** Opens the meeting asking for the English UI (`hl=en`); the drivers' German texts are the fallback. */
  async open(url: string): Promise<void> {
    await this.page.goto(withEnglishUi(url), { waitUntil: 'domcontentloaded', timeout: 60_000 });
  }

  async prepareStep(name: string): Promise<string | null> {
    this.botName = name;
    const evidence = await readEvidence(this.page);
    const interstitial = findControl(evidence, MEET_INTERSTITIAL_BUTTONS, { visible: true });
    if (interstitial && (await clickButton(this.page, MEET_INTERSTITIAL_BUTTONS)))
      return 'dismissed an interstitial';

    const nameInput = evidence.inputs.find((input) => input.visible && isMeetNameField(input));
    if (nameInput && nameInput.value !== name) {
      await this.page
        .getByRole('textbox', { name: accessibleName(MEET_NAME_LABELS) })
        .first()
        .fill(name, { timeout: 5000 });
      return 'entered the name';
    }
    if (
      findControl(evidence, MEET_MIC_OFF, { visible: true }) &&
      (await clickButton(this.page, MEET_MIC_OFF))
    ) {
      return 'turned the microphone off';
    }
    if (
      findControl(evidence, MEET_CAMERA_OFF, { visible: true }) &&
      (await clickButton(this.page, MEET_CAMERA_OFF))
    ) {
      return 'turned the camera off';
    }
    // Best first: if both "Ask to join" and "Join now" are shown, asking is never wrong.
    for (const label of MEET_JOIN_BUTTONS) {
      if (findControl(evidence, [label], { visible: true, enabled: true, inDialog: false })) {
        const main = this.page.locator('body');
        if (await clickButton(main, [label], joinPress(evidence, this.log))) {
          this.progress.asked = true;
          return `pressed "${label}"`;
        }
      }
    }
    return null;
  }

  async observe(options: { quiet?: boolean } = {}): Promise<Observation> {
    if (!options.quiet) await wakeToolbar(this.page);
    const observation = observeMeet(await readEvidence(this.page), this.progress, this.botName);
    if (observation.screen.kind === 'in_call') this.progress.inCall = true;
    return observation;
  }

  async answerDialog(): Promise<string | null> {
    const dialogs = this.page.locator(DIALOG_SELECTOR);
    if (await clickFirstVisible(dialogs.locator(DIALOG_CONFIRM))) return 'confirmed a dialog';
    if (await clickButton(dialogs, MEET_DIALOG_ANSWERS)) return 'answered a dialog';
    return null;
  }

  async ensureMuted(): Promise<void> {
    await wakeToolbar(this.page);
    // Each press waits for the page to show it: a switch asked for right after (an image, speech)
    // must not read the label of a moment ago and take the camera for on.
    if (await clickButton(this.page, MEET_MIC_OFF)) {
      this.log.info('microphone was on; turned it off');
      await waitForToggle(this.page, MEET_MIC_ON);
    }
    if (await clickButton(this.page, MEET_CAMERA_OFF)) {
      this.log.info('camera was on; turned it off');
      await waitForToggle(this.page, MEET_CAMERA_ON);
    }
  }

  setMicrophone(on: boolean): Promise<boolean> {
    return this.toggle(on ? [MEET_MIC_ON, MEET_MIC_OFF] : [MEET_MIC_OFF, MEET_MIC_ON]);
  }

  setCamera(on: boolean): Promise<boolean> {
    return this.toggle(on ? [MEET_CAMERA_ON, MEET_CAMERA_OFF] : [MEET_CAMERA_OFF, MEET_CAMERA_ON]);
  }

  private async toggle([press, shownWhenDone]: readonly [
    readonly string[],
    readonly string[],
  ]): Promise<boolean> {
    await wakeToolbar(this.page);
    return setToggle(this.page, press, shownWhenDone);
  }

  turnOffIncomingVideo(abandoned: AbortSignal): Promise<boolean> {
    return setMeetAudioOnly(this.page, abandoned);
  }

  async leave(): Promise<void> {
    this.progress.leaving = true;
    await wakeToolbar(this.page);
    let left = await pressLeave(this.page, MEET_LEAVE_CALL);
    if (!left) left = await clickButton(this.page, MEET_LEAVE_LOBBY);
    if (!left) {
      this.log.warn('no leave control found');
      return;
    }
    const out = await waitUntilOut({
      observe: () => this.observe(),
      confirm: () => clickButton(this.page, MEET_LEAVE_CONFIRM),
    });
    if (!out) this.log.warn('the page still shows the call after leaving');
  }
}
