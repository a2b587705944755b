import type { Page } from 'playwright-core';
import type { Logger } from '../../shared/infra/logger.js';
import { turnOffTeamsIncomingVideo } from './teams-incoming-video-off.js';
import type { Observation, PlatformDriver } from './driver.js';
import { findControl } from './evidence.js';
import {
  buttonsByText,
  clickButton,
  clickFirstVisible,
  joinPress,
  pressLeave,
  readEvidence,
  setToggle,
  waitForToggle,
  waitUntilOut,
} from './page-actions.js';
import { TEAMS_SPEAKING_SCRIPT } from './speaking-scripts.js';
import { TeamsChat } from './teams-chat.js';
import {
  isTeamsNameField,
  observeTeams,
  TEAMS_CAMERA_OFF,
  TEAMS_CAMERA_ON,
  TEAMS_CANCEL_TID,
  TEAMS_CONTINUE_IN_BROWSER,
  TEAMS_HANGUP_IDS,
  TEAMS_HANGUP_TIDS,
  TEAMS_JOIN_TID,
  TEAMS_LEAVE,
  TEAMS_LEAVE_CONFIRM,
  TEAMS_MIC_OFF,
  TEAMS_MIC_ON,
  TEAMS_NAME_PLACEHOLDERS,
  TEAMS_NAME_TID,
  TEAMS_NO_AV_CONFIRM,
  TEAMS_TOGGLE_TIDS,
  teamsSwitchState,
} from './teams-screens.js';

const HANGUP_SELECTOR = [
  ...TEAMS_HANGUP_TIDS.map((tid) => `[data-tid="${tid}"]`),
  ...TEAMS_HANGUP_IDS.map((id) => `#${id}`),
].join(', ');

export class TeamsDriver implements PlatformDriver {
  readonly platform = 'teams' as const;
  /** A wrong passcode gets "Sorry, we couldn't connect you", the words of its refusal of a bot. */
  readonly refusesBadLinksAsBlocked = true;
  readonly speakingScript = TEAMS_SPEAKING_SCRIPT;
  private botName = '';

  readonly chat: TeamsChat;

  constructor(
    private readonly page: Page,
    private readonly log: Logger,
  ) {
    this.chat = new TeamsChat(page, log.child({ component: 'chat' }));
  }

  /** The English UI comes from the browser context's locale (en-US, with its Accept-Language). */
  async open(url: string): Promise<void> {
    await this.page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60_000 });
  }

  async prepareStep(name: string): Promise<string | null> {
    this.botName = name;
    const evidence = await readEvidence(this.page);
    // Found by aria-label or by text: the launcher names its buttons one way and shows another.
    if (findControl(evidence, TEAMS_CONTINUE_IN_BROWSER, { visible: true })) {
      if (
        (await clickButton(this.page, TEAMS_CONTINUE_IN_BROWSER)) ||
        (await clickFirstVisible(buttonsByText(this.page, TEAMS_CONTINUE_IN_BROWSER)))
      )
        return 'continued in the browser';
    }
    const nameInput = evidence.inputs.find((input) => input.visible && isTeamsNameField(input));
    if (nameInput && nameInput.value !== name) {
      const field = this.page
        .locator(
          [
            `[data-tid="${TEAMS_NAME_TID}"]`,
            ...TEAMS_NAME_PLACEHOLDERS.map((placeholder) => `input[placeholder="${placeholder}" i]`),
          ].join(', '),
        )
        .first();
      await field.fill(name, { timeout: 5000 });
      return 'entered the name';
    }
    // The switches are checkbox inputs (state: checked) or ARIA switches (aria-checked); either way
    // one is switched off per step, and the next step reads it again before anything is joined.
    for (const [device, tid] of Object.entries(TEAMS_TOGGLE_TIDS)) {
      if (
        teamsSwitchState(evidence, tid) === 'on' &&
        (await clickFirstVisible(this.page.locator(`[data-tid="${tid}"]`)))
      ) {
        return `switched the ${device} off`;
      }
    }
    const join = evidence.controls.find((control) => control.tid === TEAMS_JOIN_TID && control.visible);
    if (
      join &&
      !join.disabled &&
      (await clickFirstVisible(
        this.page.locator(`[data-tid="${TEAMS_JOIN_TID}"]`),
        joinPress(evidence, this.log),
      ))
    ) {
      const switches = Object.entries(TEAMS_TOGGLE_TIDS).map(
        ([device, tid]) => `${device} ${teamsSwitchState(evidence, tid) ?? 'not shown'}`,
      );
      this.log.info({ switches }, 'joining with the microphone and camera as read');
      return 'pressed "Join now"';
    }
    return null;
  }

  async observe(): Promise<Observation> {
    return observeTeams(await readEvidence(this.page), this.botName);
  }

  async answerDialog(): Promise<string | null> {
    if (await clickButton(this.page, TEAMS_NO_AV_CONFIRM)) return 'continued without audio or video';
    return null;
  }

  async ensureMuted(): Promise<void> {
    // Teams keeps the pre-join choice; a switched-on microphone in the call is a real toggle.
    const mic = this.page.locator(
      'input[data-tid="toggle-mute"]:checked, [data-tid="toggle-mute"][aria-checked="true"], #microphone-button[aria-pressed="true"]',
    );
    if (await clickFirstVisible(mic)) {
      this.log.info('microphone was on; turned it off');
      // Wait until the page shows it, so speech asked for right after reads the new state (as setToggle does).
      await waitForToggle(this.page, TEAMS_MIC_ON);
    }
  }

  setMicrophone(on: boolean): Promise<boolean> {
    return this.toggle(on ? [TEAMS_MIC_ON, TEAMS_MIC_OFF] : [TEAMS_MIC_OFF, TEAMS_MIC_ON]);
  }

  setCamera(on: boolean): Promise<boolean> {
    return this.toggle(on ? [TEAMS_CAMERA_ON, TEAMS_CAMERA_OFF] : [TEAMS_CAMERA_OFF, TEAMS_CAMERA_ON]);
  }

  private toggle([press, shownWhenDone]: readonly [readonly string[], readonly string[]]): Promise<boolean> {
    return setToggle(this.page, press, shownWhenDone);
  }

  turnOffIncomingVideo(abandoned: AbortSignal): Promise<boolean> {
    return turnOffTeamsIncomingVideo(this.page, abandoned);
  }

  async leave(): Promise<void> {
    // In the lobby: its Cancel leaves the queue (the hang-up some lobbies show does too).
    if (await clickFirstVisible(this.page.locator(`[data-tid="${TEAMS_CANCEL_TID}"]`))) {
      if (!(await waitUntilOut({ observe: () => this.observe() })))
        this.log.warn('the page still shows the lobby after cancelling');
      return;
    }
    if (!(await clickFirstVisible(this.page.locator(HANGUP_SELECTOR)))) {
      if (!(await pressLeave(this.page, TEAMS_LEAVE))) {
        this.log.warn('no hang-up control found');
        return;
      }
    }
    const out = await waitUntilOut({
      observe: () => this.observe(),
      // Some meetings confirm: "Leave" in a dialog.
      confirm: () => clickButton(this.page.locator('[role=dialog], [role=alertdialog]'), TEAMS_LEAVE_CONFIRM),
    });
    if (!out) this.log.warn('the page still shows the call after leaving');
  }
}
