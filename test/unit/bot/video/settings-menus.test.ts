import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { setMeetAudioOnly } from '../../../../bot/platforms/google-meet-audio-only.js';
import { STEP_STOPPED } from '../../../../bot/platforms/step-stopped.js';
import { turnOffTeamsIncomingVideo } from '../../../../bot/platforms/teams-incoming-video-off.js';

/**
 * A page holding none of what the incoming-video settings look for (a call that just ended, a page in
 * another language), or, with `buttonsPresent`, menu buttons that open nothing. Every press is recorded
 * (a click, a click event, a key); a click or click event on a page without the buttons never
 * settles, as Playwright's would not until its timeout: a setting that presses a button it has not
 * found hangs the test. `onPress` runs at each click or click event.
 */
function fakePage({ buttonsPresent, onPress }: { buttonsPresent: boolean; onPress?: () => void }): {
  page: Page;
  presses: string[];
} {
  const presses: string[] = [];
  const press = (what: string) => {
    presses.push(what);
    onPress?.();
    return buttonsPresent ? Promise.resolve() : new Promise<void>(() => {});
  };
  const locator: Record<string, unknown> = {
    isVisible: async () => false,
    count: async () => 0,
    all: async () => [],
    waitFor: async (options?: { state?: string }) => {
      if (buttonsPresent && options?.state === 'attached') return;
      throw new Error('Timeout exceeded');
    },
    click: () => press('click'),
    dispatchEvent: () => press('event'),
  };
  for (const chained of ['first', 'last', 'or', 'filter', 'locator', 'getByRole', 'getByText'])
    locator[chained] = () => locator;
  const page = {
    locator: () => locator,
    getByRole: () => locator,
    getByText: () => locator,
    keyboard: {
      press: async (key: string) => {
        presses.push(key);
      },
    },
    mouse: { move: async () => {} },
    viewportSize: () => ({ width: 1280, height: 720 }),
  };
  return { page: page as unknown as Page, presses };
}

/** Each platform's incoming-video setting, named by the menus it opens. */
const SETTINGS = [
  ['Teams: View, then More actions', turnOffTeamsIncomingVideo],
  ['Meet: More options', setMeetAudioOnly],
] as const;

describe('the incoming-video settings on a page without their menus', () => {
  it.each(SETTINGS)(
    '%s: gives up without pressing anything',
    async (_name, setting) => {
      const { page, presses } = fakePage({ buttonsPresent: false });
      await expect(setting(page)).resolves.toBe(false);
      expect(presses.filter((press) => press !== 'Escape')).toEqual([]);
    },
    10_000,
  );

  it.each(SETTINGS)(
    '%s: presses a menu button that is there, even when its menu never opens',
    async (_name, setting) => {
      const { page, presses } = fakePage({ buttonsPresent: true });
      await expect(setting(page)).resolves.toBe(false);
      expect(presses.length).toBeGreaterThan(0);
    },
    10_000,
  );

  it.each(SETTINGS)(
    '%s: once it gave way to other work, presses no menu button more but closes what it opened',
    async (_name, setting) => {
      const stop = new AbortController();
      const { page, presses } = fakePage({
        buttonsPresent: true,
        onPress: () => stop.abort(STEP_STOPPED.gaveWay),
      });
      await expect(setting(page, stop.signal)).resolves.toBe(false);
      expect(presses[0]).toBe('click');
      expect(presses.slice(1).length).toBeGreaterThan(0);
      expect(presses.slice(1).every((press) => press === 'Escape' || press === 'click')).toBe(true);
      // The one click after the first is Meet's Close dialog (its tidying), never a menu button.
      expect(presses.filter((press) => press === 'click').length).toBeLessThanOrEqual(2);
    },
    10_000,
  );

  it.each(SETTINGS)(
    '%s: once abandoned (the call is over), presses nothing more, not even Escape',
    async (_name, setting) => {
      const abandon = new AbortController();
      const { page, presses } = fakePage({
        buttonsPresent: true,
        onPress: () => abandon.abort(STEP_STOPPED.callOver),
      });
      await expect(setting(page, abandon.signal)).resolves.toBe(false);
      expect(presses).toEqual(['click']);
    },
    10_000,
  );
});
