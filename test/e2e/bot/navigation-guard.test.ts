import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BrowserSession, guardNavigation, launchBrowser } from '../../../bot/browser.js';
import { createNavigationPolicy } from '../../../bot/navigation-policy.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { HOST_CHROMIUM } from '../../support/chromium.js';

/** Pages that try to take the bot elsewhere: a redirect, a script navigation, a popup, a frame. */
const PAGES: Record<string, string> = {
  '/meeting': '<p>meeting</p><iframe src="https://www.google.com/recaptcha/api2/anchor"></iframe>',
  '/redirect': '',
  '/script':
    '<script>setTimeout(() => { location.href = "https://login.microsoftonline.com/common/oauth2"; }, 100)</script>',
  '/popup': '<script>window.open("http://127.0.0.1:1/elsewhere")</script>',
};

describe('navigation guard', () => {
  let server: Server;
  let origin: string;
  let session: BrowserSession;
  const refused: [string, string][] = [];
  const log = createLogger('bot-navigation-test', 'silent');

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'https://accounts.google.com/ServiceLogin' });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(PAGES[req.url ?? ''] ?? 'not here');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    session = await launchBrowser(
      { executablePath: '/usr/bin/chromium', headless: true, ...HOST_CHROMIUM },
      log,
    );
    await guardNavigation(
      session,
      createNavigationPolicy('google_meet', [origin]),
      (verdict, url) => refused.push([verdict, url]),
      log,
    );
  });

  /** A refused navigation is aborted (no error page), but it may still be settling: a new one is retried once. */
  async function gotoAfterRefusal(url: string): Promise<void> {
    await session.page.waitForTimeout(300);
    try {
      await session.page.goto(url);
    } catch {
      await session.page.waitForTimeout(500);
      await session.page.goto(url);
    }
  }

  afterAll(async () => {
    await session?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('lets the allowed origin load, sub-frames included', async () => {
    await session.page.goto(`${origin}/meeting`);
    expect(await session.page.textContent('p')).toBe('meeting');
    expect(refused).toEqual([]);
  });

  it('stops a redirect to a sign-in host before it loads', async () => {
    await expect(session.page.goto(`${origin}/redirect`)).rejects.toThrow();
    expect(refused).toEqual([['sign_in_required', 'https://accounts.google.com/ServiceLogin']]);
    expect(session.page.url()).not.toContain('accounts.google.com');
  });

  it('stops a script navigation and closes popups', async () => {
    refused.length = 0;
    await gotoAfterRefusal(`${origin}/script`);
    await expect.poll(() => refused.length, { timeout: 10_000 }).toBe(1);
    expect(refused[0]![0]).toBe('sign_in_required');
    expect(session.page.url()).toBe(`${origin}/script`);
    await gotoAfterRefusal(`${origin}/popup`);
    await expect.poll(() => session.context.pages().length, { timeout: 10_000 }).toBe(1);
  });
});
