import type { Page } from 'playwright-core';
import { accessibleName, clickButton, clickOrDispatch, wakeToolbar } from '../platforms/page-actions.js';

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
/** Each step's wait: generous, a loaded page takes seconds to draw a menu. */
const STEP_TIMEOUT_MS = 10_000;

/** True when Meet now receives audio only (set here or already). */
export async function setMeetAudioOnly(page: Page): Promise<boolean> {
  const note = page.getByText(MEET_AUDIO_ONLY_NOTE, { exact: false });
  if ((await note.count()) > 0) return true;
  const settings = page
    .locator('[role=menu] [role=menuitem], [role=menu] li')
    .filter({ hasText: new RegExp(`^\\s*(settings\\s*)?${SETTINGS_ITEM}\\s*$`, 'i') })
    .first();
  // The menu opens on the button's click; a busy page may take its time, or miss a click.
  for (let attempt = 0; attempt < 2 && !(await settings.isVisible().catch(() => false)); attempt += 1) {
    await wakeToolbar(page);
    // A busy page redraws its toolbar often: the click may wait a while for the button to hold still.
    await clickOrDispatch(
      page.getByRole('button', { name: accessibleName(MORE_OPTIONS) }).first(),
      STEP_TIMEOUT_MS,
    );
    await settings.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS }).catch(() => {});
  }
  if (!(await settings.isVisible().catch(() => false))) {
    await page.keyboard.press('Escape').catch(() => {});
    return false;
  }
  try {
    if (!(await clickOrDispatch(settings, STEP_TIMEOUT_MS))) throw new Error('Settings not clicked');
    const dialog = page.locator('[role=dialog][aria-modal=true], [aria-modal=true]').last();
    const videoTab = dialog
      .getByRole('tab', { name: accessibleName(VIDEO_TAB) })
      .or(dialog.getByRole('button', { name: accessibleName(VIDEO_TAB) }))
      .first();
    if (!(await clickOrDispatch(videoTab, STEP_TIMEOUT_MS))) throw new Error('Video tab not clicked');
    // The option sits in a collapsed list: a DOM click event reaches it without opening the list.
    const option = dialog.locator(AUDIO_ONLY_OPTION).first();
    await option.dispatchEvent('click', undefined, { timeout: STEP_TIMEOUT_MS });
    await note
      .first()
      .waitFor({ state: 'attached', timeout: STEP_TIMEOUT_MS })
      .catch(() => {});
  } catch {
    // A step that never came: the dialog is closed below and the caller tries again later.
  } finally {
    // Never leave a modal dialog over the call, whatever happened above.
    await clickButton(page, CLOSE_DIALOG).catch(() => false);
    await page.keyboard.press('Escape').catch(() => {});
  }
  return (await note.count()) > 0;
}
