import { type Browser, chromium } from 'playwright-core';
import { chromiumArgs } from '../../bot/browser.js';

/**
 * Debian's Chromium, headless, with the bot's own flags (root here, so no sandbox; autoplay allowed):
 * the browser of a person in a meeting, or of a user playing what the API serves.
 */
export function launchTestChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs() });
}
