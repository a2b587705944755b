import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserSession, launchBrowser } from '../../../bot/browser.js';
import type { PageEvidence } from '../../../bot/platforms/evidence.js';
import { clickButton, joinPress } from '../../../bot/platforms/page-actions.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { HOST_CHROMIUM } from '../../support/chromium.js';

/**
 * A join button on a page too busy for it to hold still (it never stops moving, as a button on a
 * form that keeps re-laying itself out under load), and one that holds still, each counting presses.
 */
const PAGE = `<!doctype html><html><head><style>
  @keyframes restless { from { transform: translateX(0); } to { transform: translateX(40px); } }
  #restless { animation: restless 0.2s linear infinite alternate; }
</style></head><body>
  <button id="restless" aria-label="Ask to join" onclick="window.restlessPresses = (window.restlessPresses || 0) + 1">Ask to join</button>
  <button id="still" aria-label="Join now" onclick="window.stillPresses = (window.stillPresses || 0) + 1">Join now</button>
</body></html>`;

function evidence(dialogs: string[]): PageEvidence {
  return { dialogs } as PageEvidence;
}

describe('pressing a join button on a busy page', () => {
  let server: Server;
  let session: BrowserSession;
  const log = createLogger('page-actions-test', 'silent');

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGE);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    session = await launchBrowser(
      { executablePath: '/usr/bin/chromium', headless: true, ...HOST_CHROMIUM },
      log,
    );
    await session.page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  });

  afterAll(async () => {
    await session?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('a click alone never lands on a button that does not hold still', async () => {
    const misses: string[] = [];
    expect(
      await clickButton(session.page, ['Ask to join'], { onMiss: (error) => misses.push(error.message) }),
    ).toBe(false);
    expect(misses).toHaveLength(1);
    expect(await session.page.evaluate('window.restlessPresses ?? 0')).toBe(0);
  });

  it('a join press sends the click event itself when nothing covers the form, and says it missed', async () => {
    const logged: { fields: { heldUpBy?: string }; message: string }[] = [];
    const spy = {
      info: (fields: { heldUpBy?: string }, message: string) => logged.push({ fields, message }),
    } as never;
    expect(await clickButton(session.page, ['Ask to join'], joinPress(evidence([]), spy))).toBe(true);
    expect(await session.page.evaluate('window.restlessPresses')).toBe(1);
    expect(logged.map((line) => line.message)).toEqual(['the join button did not take the click']);
    // The log says what held the click up: the button never held still.
    expect(logged[0]!.fields.heldUpBy).toBe('element is not stable');
  });

  it('a join press under a dialog is left to the dialog', async () => {
    const before = await session.page.evaluate('window.restlessPresses ?? 0');
    const options = joinPress(evidence(['Do you want people to see and hear you in the meeting?']), log);
    expect(options.orDispatch).toBe(false);
    expect(await clickButton(session.page, ['Ask to join'], options)).toBe(false);
    expect(await session.page.evaluate('window.restlessPresses ?? 0')).toBe(before);
  });

  it('a button that holds still takes a plain click, no event sent', async () => {
    const misses: string[] = [];
    expect(
      await clickButton(session.page, ['Join now'], {
        orDispatch: true,
        onMiss: (error) => misses.push(error.message),
      }),
    ).toBe(true);
    expect(misses).toEqual([]);
    expect(await session.page.evaluate('window.stillPresses')).toBe(1);
  });
});
