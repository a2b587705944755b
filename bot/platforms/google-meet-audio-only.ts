import type { Page } from 'playwright-core';
import { accessibleName, clickButton, clickOrDispatch, isPresent, wakeToolbar } from './page-actions.js';
import { MENU_BUTTON_PRESENT_MS, SETTINGS_STEP_TIMEOUT_MS } from './settings-steps.js';
import { tidiesUp } from './step-stopped.js';

/**
 * The `incoming_video_off` measure on Google Meet: More options → Settings → Video → Receive
 * resolution (maximum) "Audio only" → Close dialog. Meet then stops sending others' cameras (tiles
 * show avatars, speaking indicators go on as before; presentations still arrive) and says so in the
 * call: "Incoming video is set to audio only", which is also how the bot knows it is already set.
 * Landmarks and their sources: docs/platform-landmarks.md, "Video".
 */
export const MEET_AUDIO_ONLY_NOTE = 'Incoming video is set to audio only';
const MORE_OPTIONS = ['More options'];
const SETTINGS_ITEM = 'Settings';
const VIDEO_TAB = ['Video'];
const AUDIO_ONLY_OPTION = 'li[aria-label="Audio only"], [role=option][aria-label="Audio only"]';
const CLOSE_DIALOG = ['Close dialog', 'Close dialogue'];

/**
 * True when Meet now receives audio only (set here or already). Once `abandoned` is aborted it stops
 * between steps: it closes what it opened when it gave way to other work, and leaves the page as it
 * is when the call is over (the bot's leave closes a dialog it left open).
 */
export async function setMeetAudioOnly(page: Page, abandoned?: AbortSignal): Promise<boolean> {
  const note = page.getByText(MEET_AUDIO_ONLY_NOTE, { exact: false });
  if ((await note.count()) > 0) return true;
  const settings = page
    .locator('[role=menu] [role=menuitem], [role=menu] li')
    .filter({ hasText: new RegExp(`^\\s*(settings\\s*)?${SETTINGS_ITEM}\\s*$`, 'i') })
    .first();
  // The toolbar hides itself: its buttons stay in the page. No More options button (the call just
  // ended, or the page is in another language): nothing to wait for.
  const moreOptions = page
    .getByRole('button', { name: accessibleName(MORE_OPTIONS), includeHidden: true })
    .first();
  if (!(await isPresent(moreOptions, MENU_BUTTON_PRESENT_MS))) return false;
  // The menu opens on the button's click; a busy page may take its time, or miss a click.
  for (
    let attempt = 0;
    attempt < 2 && !abandoned?.aborted && !(await settings.isVisible().catch(() => false));
    attempt += 1
  ) {
    await wakeToolbar(page);
    // A busy page redraws its toolbar often: the click may wait a while for the button to hold still.
    await clickOrDispatch(
      page.getByRole('button', { name: accessibleName(MORE_OPTIONS) }).first(),
      SETTINGS_STEP_TIMEOUT_MS,
    );
    await settings.waitFor({ state: 'visible', timeout: SETTINGS_STEP_TIMEOUT_MS }).catch(() => {});
  }
  if (abandoned?.aborted) {
    if (tidiesUp(abandoned)) await page.keyboard.press('Escape').catch(() => {});
    return false;
  }
  if (!(await settings.isVisible().catch(() => false))) {
    await page.keyboard.press('Escape').catch(() => {});
    return false;
  }
  const stopIfAbandoned = () => {
    if (abandoned?.aborted) throw new Error('stopped: the call is over or other work waits');
  };
  try {
    if (!(await clickOrDispatch(settings, SETTINGS_STEP_TIMEOUT_MS))) throw new Error('Settings not clicked');
    stopIfAbandoned();
    const dialog = page.locator('[role=dialog][aria-modal=true], [aria-modal=true]').last();
    const videoTab = dialog
      .getByRole('tab', { name: accessibleName(VIDEO_TAB) })
      .or(dialog.getByRole('button', { name: accessibleName(VIDEO_TAB) }))
      .first();
    if (!(await clickOrDispatch(videoTab, SETTINGS_STEP_TIMEOUT_MS)))
      throw new Error('Video tab not clicked');
    stopIfAbandoned();
    // The option sits in a collapsed list: a DOM click event reaches it without opening the list.
    const option = dialog.locator(AUDIO_ONLY_OPTION).first();
    await option.dispatchEvent('click', undefined, { timeout: SETTINGS_STEP_TIMEOUT_MS });
    stopIfAbandoned();
    await note
      .first()
      .waitFor({ state: 'attached', timeout: SETTINGS_STEP_TIMEOUT_MS })
      .catch(() => {});
  } catch {
    // A step that never came: the dialog is closed below and the caller tries again later.
  } finally {
    // Never leave a modal dialog over the call, whatever happened above (abandoned as the call is
    // over: the leave's Escape closes it, and a press here could land on the leave's confirmation).
    if (tidiesUp(abandoned)) {
      await clickButton(page, CLOSE_DIALOG).catch(() => false);
      await page.keyboard.press('Escape').catch(() => {});
    }
  }
  return (await note.count().catch(() => 0)) > 0;
}
