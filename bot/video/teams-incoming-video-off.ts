import type { Locator, Page } from 'playwright-core';
import { clickOrDispatch } from '../platforms/page-actions.js';

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
/** Each step's wait: generous, a loaded page takes seconds to draw a menu. */
const STEP_TIMEOUT_MS = 10_000;

/** Escape closes Teams' menus. */
async function closeMenu(page: Page): Promise<void> {
  await page.keyboard.press('Escape').catch(() => {});
}

/** Opens the menu behind `button` until `shown` is visible (two clicks at most); false if it never is. */
async function openMenu(page: Page, button: string, shown: Locator): Promise<boolean> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    if (await shown.isVisible().catch(() => false)) return true;
    if (!(await clickOrDispatch(page.locator(button).first(), STEP_TIMEOUT_MS)) && attempt === 0) {
      // No such button: maybe the click landed late; one look before giving up on this menu.
      await shown.waitFor({ state: 'visible', timeout: 1000 }).catch(() => {});
      if (!(await shown.isVisible().catch(() => false))) return false;
    }
    await shown.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS }).catch(() => {});
  }
  return shown.isVisible().catch(() => false);
}

/** True when Teams no longer receives others' videos (turned off here, or already). */
export async function turnOffTeamsIncomingVideo(page: Page): Promise<boolean> {
  const item = page.locator(TURN_OFF).first();
  const turnedOff = page.locator(TURNED_OFF).first();
  const either = item.or(turnedOff).first();
  for (const menu of [VIEW_BUTTON, MORE_BUTTON]) {
    if (!(await openMenu(page, menu, either))) {
      await closeMenu(page);
      continue;
    }
    if (await turnedOff.isVisible().catch(() => false)) {
      await closeMenu(page);
      return true;
    }
    const clicked = await clickOrDispatch(item, STEP_TIMEOUT_MS);
    await closeMenu(page);
    if (!clicked) continue;
    // The item now reads "Turn on incoming video": reopen the menu to read it, then close it.
    const done = (await openMenu(page, menu, either)) && (await turnedOff.isVisible().catch(() => false));
    await closeMenu(page);
    return done;
  }
  return false;
}
