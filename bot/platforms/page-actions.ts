import { stripVTControlCharacters } from 'node:util';
import type { Locator, Page } from 'playwright-core';
import { sleep } from '../../shared/infra/async.js';
import type { Logger } from '../../shared/infra/logger.js';
import { COLLECT_EVIDENCE_SCRIPT, type PageEvidence } from './evidence.js';

function escapeRegExp(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Matches an accessible name equal to one of the names, optionally followed by "(shortcut)". */
export function accessibleName(names: readonly string[]): RegExp {
  return new RegExp(`^\\s*(${names.map(escapeRegExp).join('|')})(\\s*\\(.*\\))?\\s*$`, 'i');
}

/** Buttons whose visible text is one of the names, whatever their accessible name (aria-label) says. */
export function buttonsByText(scope: Page | Locator, names: readonly string[]): Locator {
  const text = new RegExp(`^\\s*(${names.map(escapeRegExp).join('|')})\\s*$`, 'i');
  return scope.locator('button, [role=button]').filter({ hasText: text });
}

export function readEvidence(page: Page): Promise<PageEvidence> {
  return page.evaluate(COLLECT_EVIDENCE_SCRIPT) as Promise<PageEvidence>;
}

export interface ClickOptions {
  /**
   * When the click runs out of time on a visible, enabled match (a busy page where the button never
   * holds still long enough), send the click event itself (clickOrDispatch). For a press nothing
   * may cover: the caller has seen no dialog over it.
   */
  orDispatch?: boolean;
  /**
   * Told why a visible, enabled match did not take the press: the click (`click`), or, after it,
   * the click event sent itself (`event`, with orDispatch).
   */
  onMiss?: (error: Error, press: 'click' | 'event') => void;
}

/** Clicks the first visible, enabled match; false when there is none (or it went away meanwhile). */
export async function clickFirstVisible(locator: Locator, options: ClickOptions = {}): Promise<boolean> {
  const candidates = await locator.all();
  for (const candidate of candidates) {
    try {
      if (!(await candidate.isVisible()) || !(await candidate.isEnabled())) continue;
    } catch {
      continue;
    }
    try {
      await candidate.click({ timeout: 3000 });
      return true;
    } catch (error) {
      // Detached or covered between the look and the click: try the next one.
      options.onMiss?.(error as Error, 'click');
      if (options.orDispatch && (await dispatchClick(candidate, 3000, options.onMiss))) return true;
    }
  }
  return false;
}

function dispatchClick(
  target: Locator,
  timeoutMs: number,
  onMiss?: ClickOptions['onMiss'],
): Promise<boolean> {
  return target.dispatchEvent('click', undefined, { timeout: timeoutMs }).then(
    () => true,
    (error: unknown) => {
      onMiss?.(error as Error, 'event');
      return false;
    },
  );
}

/**
 * Whether `target` is in the page (hidden counts) or comes into it within `timeoutMs`. A step that
 * opens a menu looks first: a click waits its whole timeout for a button the page doesn't have (a
 * call that just ended, a page in another language), and the bot notices nothing else meanwhile.
 */
export function isPresent(target: Locator, timeoutMs: number): Promise<boolean> {
  return target.waitFor({ state: 'attached', timeout: timeoutMs }).then(
    () => true,
    () => false,
  );
}

/**
 * Clicks `target` as a person would; when a busy page keeps it from holding still long enough,
 * sends the click event itself (what other bots call a forceful click). False when neither worked.
 */
export async function clickOrDispatch(target: Locator, timeoutMs: number): Promise<boolean> {
  try {
    await target.click({ timeout: Math.min(3000, timeoutMs) });
    return true;
  } catch {
    return dispatchClick(target, timeoutMs);
  }
}

export function clickButton(
  scope: Page | Locator,
  names: readonly string[],
  options: ClickOptions = {},
): Promise<boolean> {
  return clickFirstVisible(scope.getByRole('button', { name: accessibleName(names) }), options);
}

/**
 * Presses the call's leave button (`names`). It first closes whatever menu or dialog is open over
 * the call (Escape): the bot's own settings dialog may still be up when its time is up. When a busy
 * page keeps the button from holding still (or its toolbar hidden), it sends the click event itself.
 * False when the page shows no such button.
 */
export async function pressLeave(page: Page, names: readonly string[]): Promise<boolean> {
  await page.keyboard.press('Escape').catch(() => {});
  if (await clickButton(page, names)) return true;
  const button = page.getByRole('button', { name: accessibleName(names), includeHidden: true }).first();
  if ((await button.count().catch(() => 0)) === 0) return false;
  return dispatchClick(button, 3000);
}

/** How long a pressed toggle may take to show its new state before the bot goes on anyway. */
const TOGGLE_SETTLE_MS = 3000;

/**
 * After pressing a toggle: waits until the page shows the button of its new state (`shown`, e.g.
 * "Turn on camera" once the camera went off), so whatever looks at the toggles next reads what was
 * pressed, not the label of a moment ago. Hidden buttons count (Meet's toolbar hides itself).
 */
export function waitForToggle(page: Page, shown: readonly string[]): Promise<boolean> {
  return isPresent(
    page.getByRole('button', { name: accessibleName(shown), includeHidden: true }).first(),
    TOGGLE_SETTLE_MS,
  );
}

/**
 * Sets an on/off toggle named by what pressing it does ("Turn on camera", "start my video"):
 * presses `press` when it is shown, then waits for the page to show `shownWhenDone`; true when it
 * was pressed or is already as asked (only `shownWhenDone` shown).
 */
export async function setToggle(
  page: Page,
  press: readonly string[],
  shownWhenDone: readonly string[],
): Promise<boolean> {
  if (await clickButton(page, press)) {
    await waitForToggle(page, shownWhenDone);
    return true;
  }
  // Already as asked: the toggle offers the opposite.
  return (await page.getByRole('button', { name: accessibleName(shownWhenDone) }).count()) > 0;
}

/** Meet hides its toolbar when the pointer is idle; a small move brings it back. */
export async function wakeToolbar(page: Page): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
  const x = Math.round(viewport.width / 2 + (Math.random() * 40 - 20));
  const y = Math.round(viewport.height - 120 + (Math.random() * 20 - 10));
  await page.mouse.move(x, y, { steps: 2 }).catch(() => {});
}

/** What `waitUntilOut` needs: the driver's look at the page, and its confirmation press if leaving asks for one. */
export interface WayOut {
  observe: () => Promise<{ screen: { kind: string } }>;
  /** Presses the page's "really leave" control when it shows; false while it doesn't. */
  confirm?: () => Promise<boolean>;
  timeoutMs?: number;
}

/**
 * After pressing leave: waits (briefly) until the page no longer shows the lobby or the call,
 * pressing the confirmation whenever the page shows one. A loaded page can take seconds to open
 * its confirmation, so one look right after the press is not enough.
 */
export async function waitUntilOut({ observe, confirm, timeoutMs = 8000 }: WayOut): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const { screen } = await observe();
      if (!['in_call', 'dialog', 'lobby'].includes(screen.kind)) return true;
    } catch {
      // The page navigating away (e.g. to the home screen) is a way out too.
      return true;
    }
    if (confirm) await confirm().catch(() => false);
    await sleep(300);
  }
  return false;
}

/**
 * How a pre-join form's join button is pressed: sent as an event when a busy page keeps the click
 * from completing, unless a dialog covers the form; every miss said in the log, since a bot whose
 * presses never take fails as `blocked` and its log is all that says why.
 */
export function joinPress(evidence: PageEvidence, log: Logger): ClickOptions {
  return {
    orDispatch: evidence.dialogs.length === 0,
    onMiss: (error, press) =>
      log.info(
        { err: firstLine(error.message), heldUpBy: heldUpBy(error.message) },
        press === 'click'
          ? 'the join button did not take the click'
          : 'the join button did not take the click event either',
      ),
  };
}

/** A Playwright error's first line: what failed, without its call log. */
export function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}

/**
 * What held a timed-out press up, from the call log Playwright puts in its error: its last finding
 * ("element is not stable", "<div> intercepts pointer events"), its retries and waits left out.
 */
export function heldUpBy(message: string): string | undefined {
  const [, callLog] = message.split(/\nCall log:\n/);
  const findings = callLog
    ?.split('\n')
    .map((line) => stripVTControlCharacters(line))
    .map((line) => line.replace(/^\s*-\s*/, '').trim())
    .filter((line) => line.length > 0 && !/^(waiting \d+ms|retrying .* action)$/.test(line));
  return findings?.at(-1);
}
