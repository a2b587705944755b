import type { Locator, Page } from 'playwright-core';
import { clickOrDispatch, isPresent } from './page-actions.js';
import { MENU_BUTTON_PRESENT_MS, SETTINGS_STEP_TIMEOUT_MS } from './settings-steps.js';
import { tidiesUp } from './step-stopped.js';

/**
 * The `incoming_video_off` measure on Teams: the call bar's View menu → "Turn off incoming video"
 * (older builds: the same item under More actions). Teams then stops others' videos (tiles show
 * avatars and their speaking outlines; shared content still arrives); the item then reads "Turn on
 * incoming video", which is how the bot knows it is set. Landmarks and their sources:
 * docs/platform-landmarks.md, "Video".
 */
const VIEW_BUTTON = '#view-mode-button, #custom-view-button, button[aria-label="View"]';
const MORE_BUTTON = '#callingButtons-showMoreBtn, #ViewModeMoreOptionsMenuControl-id';
const TURN_OFF =
  "[aria-label='Turn off incoming video'], [aria-label='Turn off all videos'], #incoming-video-button:not([aria-label*='Turn on']), #toggle-incoming-video-button:not([aria-label*='Turn on'])";
const TURNED_OFF = "[aria-label='Turn on incoming video'], [aria-label='Turn on all videos']";

/** Escape closes Teams' menus. */
async function closeMenu(page: Page): Promise<void> {
  await page.keyboard.press('Escape').catch(() => {});
}

/**
 * Opens the menu behind `button` until `shown` is visible (two clicks at most); false if it never is,
 * or at once when the page has no such button.
 */
async function openMenu(
  page: Page,
  button: string,
  shown: Locator,
  abandoned?: AbortSignal,
): Promise<boolean> {
  const target = page.locator(button).first();
  if (!(await shown.isVisible().catch(() => false)) && !(await isPresent(target, MENU_BUTTON_PRESENT_MS)))
    return false;
  for (let attempt = 0; attempt < 2 && !abandoned?.aborted; attempt += 1) {
    if (await shown.isVisible().catch(() => false)) return true;
    if (!(await clickOrDispatch(target, SETTINGS_STEP_TIMEOUT_MS)) && attempt === 0) {
      // No such button: maybe the click landed late; one look before giving up on this menu.
      await shown.waitFor({ state: 'visible', timeout: 1000 }).catch(() => {});
      if (!(await shown.isVisible().catch(() => false))) return false;
    }
    await shown.waitFor({ state: 'visible', timeout: SETTINGS_STEP_TIMEOUT_MS }).catch(() => {});
  }
  return shown.isVisible().catch(() => false);
}

/**
 * True when Teams no longer receives others' videos (turned off here, or already). Once `abandoned`
 * is aborted it stops between steps: it closes an open menu when it gave way to other work, and
 * leaves any menu as it is when the call is over (the bot's leave closes it).
 */
export async function turnOffTeamsIncomingVideo(page: Page, abandoned?: AbortSignal): Promise<boolean> {
  const item = page.locator(TURN_OFF).first();
  const turnedOff = page.locator(TURNED_OFF).first();
  const either = item.or(turnedOff).first();
  /** Whether the try is to stop here, a menu perhaps open: closed unless the call is over. */
  const stopsHere = async (): Promise<boolean> => {
    if (!abandoned?.aborted) return false;
    if (tidiesUp(abandoned)) await closeMenu(page);
    return true;
  };
  for (const menu of [VIEW_BUTTON, MORE_BUTTON]) {
    if (abandoned?.aborted) return false;
    const opened = await openMenu(page, menu, either, abandoned);
    if (await stopsHere()) return false;
    if (!opened) {
      await closeMenu(page);
      continue;
    }
    if (await turnedOff.isVisible().catch(() => false)) {
      await closeMenu(page);
      return true;
    }
    const clicked = await clickOrDispatch(item, SETTINGS_STEP_TIMEOUT_MS);
    if (await stopsHere()) return false;
    await closeMenu(page);
    if (!clicked) continue;
    // The item now reads "Turn on incoming video": reopen the menu to read it, then close it.
    const done =
      (await openMenu(page, menu, either, abandoned)) && (await turnedOff.isVisible().catch(() => false));
    if (await stopsHere()) return done;
    await closeMenu(page);
    return done;
  }
  return false;
}
