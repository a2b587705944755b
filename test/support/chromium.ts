import { type Browser, chromium } from 'playwright-core';
import { chromiumArgs } from '../../bot/browser.js';

/**
 * Chromium as tests run it on this host: as root, where Chromium refuses its sandbox (bot containers
 * run it sandboxed, as an unprivileged user: test/e2e/docker/chromium-sandbox.test.ts).
 */
export const HOST_CHROMIUM = { sandbox: false } as const;

/**
 * Debian's Chromium, headless, with the bot's own flags (root here, so no sandbox; autoplay allowed):
 * the browser of a person in a meeting, or of a user playing what the API serves.
 */
export function launchTestChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: chromiumArgs(HOST_CHROMIUM),
  });
}
