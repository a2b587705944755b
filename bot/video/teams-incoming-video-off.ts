import type { Page } from 'playwright-core';
import { sleep } from '../../shared/infra/async.js';
import { clickFirstVisible } from '../platforms/page-actions.js';

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
const STEP_TIMEOUT_MS = 5000;

/** Escape closes Teams' menus; the bot's pointer then goes back where it rests. */
async function closeMenu(page: Page): Promise<void> {
  await page.keyboard.press('Escape').catch(() => {});
}

/** True when Teams no longer receives others' videos (turned off here, or already). */
export async function turnOffTeamsIncomingVideo(page: Page): Promise<boolean> {
  for (const menu of [VIEW_BUTTON, MORE_BUTTON]) {
    if (!(await clickFirstVisible(page.locator(menu)))) continue;
    const item = page.locator(TURN_OFF).first();
    const turnedOff = page.locator(TURNED_OFF).first();
    const found = await item
      .or(turnedOff)
      .first()
      .waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS })
      .then(
        () => true,
        () => false,
      );
    if (found && (await item.isVisible().catch(() => false))) {
      await item.click({ timeout: STEP_TIMEOUT_MS });
      await sleep(300);
      // Reopen the menu to read the item's new label, then close it again.
      await clickFirstVisible(page.locator(menu));
      const done = await turnedOff.waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS }).then(
        () => true,
        () => false,
      );
      await closeMenu(page);
      if (done) return true;
      continue;
    }
    const already = found && (await turnedOff.isVisible().catch(() => false));
    await closeMenu(page);
    if (already) return true;
  }
  return false;
}
