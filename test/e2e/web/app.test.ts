import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertChatMessages } from '../../../shared/chat/store.js';
import { ADMIN_KEY, googleMeetBot, startTestApi, type TestApi, type TestUser } from '../../support/api.js';
import { launchTestChromium } from '../../support/chromium.js';
import { advanceMeeting, transitionMeeting } from '../../support/meetings.js';
import { segmentRow } from '../../support/segments.js';
import {
  type AppPage,
  addSegments,
  announce,
  oggOpus,
  openApp,
  readyRecording,
  seriousAccessibilityViolations,
  signIn,
} from '../../support/web-app.js';

// The web app in a real Chromium against the real API (Postgres, Redis), its data seeded through the
// stores as the worker would write it: no bot container. The one test through the whole stack, with
// a bot in a simulated meeting, is test/e2e/stack/web-app.test.ts.

let api: TestApi;
let user: TestUser;
let browser: Browser;
const opened: AppPage[] = [];

beforeAll(async () => {
  api = await startTestApi();
  user = await api.createUser({ maxConcurrentBots: 100 });
  browser = await launchTestChromium();
});
afterAll(async () => {
  for (const app of opened) await app.context.close().catch(() => {});
  await browser?.close();
  await api?.close();
});

async function open(options: { viewport?: { width: number; height: number } } = {}): Promise<AppPage> {
  const app = await openApp(browser, api.baseUrl, options);
  opened.push(app);
  return app;
}

async function signedIn(
  owner: TestUser = user,
  viewport?: { width: number; height: number },
): Promise<AppPage> {
  const app = await open(viewport ? { viewport } : {});
  await signIn(app.page, owner.key);
  return app;
}

/** Nothing the page did broke its rules: no other origin, no CSP violation, no script error, no key in a URL. */
function expectClean(app: AppPage, key: string = user.key): void {
  expect(app.watch.foreignRequests).toEqual([]);
  expect(app.watch.policyViolations).toEqual([]);
  expect(app.watch.scriptErrors).toEqual([]);
  expect(app.watch.urls.filter((url) => url.includes(key))).toEqual([]);
}

let meetCounter = 0;
function nextMeetId(): string {
  meetCounter += 1;
  const letters = (n: number, width: number) =>
    Array.from({ length: width }, (_, i) => String.fromCharCode(97 + (Math.floor(n / 26 ** i) % 26))).join(
      '',
    );
  return `wab-${letters(meetCounter, 4)}-app`;
}

/** A meeting of `owner` through the API, walked to `status` as a bot would. */
async function meeting(
  owner: TestUser,
  status: 'requested' | 'active' | 'completed' = 'active',
  name?: string,
): Promise<{ id: number; nativeId: string }> {
  const nativeId = nextMeetId();
  const created = await api.request('POST', '/bots', { key: owner.key, json: googleMeetBot(nativeId) });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  if (name)
    await api.request('PATCH', `/meetings/google_meet/${nativeId}`, {
      key: owner.key,
      json: { data: { name } },
    });
  if (status !== 'requested') await advanceMeeting(api.database.db, id, 'active');
  if (status === 'completed')
    await transitionMeeting(api.database.db, id, { to: 'completed', source: 'test' });
  return { id, nativeId };
}

async function openMeeting(app: AppPage, id: number): Promise<void> {
  await app.page.evaluate((hash) => {
    location.hash = hash;
  }, `#/meetings/${id}`);
  await app.page.getByRole('heading', { name: 'Transcript' }).waitFor();
}

function rows(page: Page) {
  return page.locator('.transcript-scroller li.segment');
}

describe('serving', () => {
  it('serves the page under /app/ with a strict policy, hashed assets cached for good, nothing inline', async () => {
    const answer = await fetch(`${api.baseUrl}/app/`);
    expect(answer.status).toBe(200);
    const policy = answer.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain('unsafe-inline');
    expect(policy).not.toContain('unsafe-eval');
    expect(answer.headers.get('cache-control')).toBe('no-cache');
    const html = await answer.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style/);
    // Relative, so the page works under a proxy's path prefix.
    const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map(
      (match) => `/app/${match[1]!}`,
    );
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const file = await fetch(`${api.baseUrl}${asset}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('cache-control')).toContain('immutable');
      expect(file.headers.get('content-security-policy')).toBe(policy);
    }
    const redirect = await fetch(`${api.baseUrl}/app`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, 'app/']);
    expect(new URL('app/', `${api.baseUrl}/app`).pathname).toBe('/app/');
    const unknown = await fetch(`${api.baseUrl}/app/assets/nothing.js`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'Not found' });
    const traversal = await fetch(`${api.baseUrl}/app/assets/..%2F..%2Fpackage.json`);
    expect(traversal.status).toBe(404);
  });
});

describe('behind a proxy that mounts the API under a path', () => {
  it('loads, signs in and reads the meetings through the prefix (its addresses are relative)', async () => {
    const target = new URL(api.baseUrl);
    const proxy = createServer((request, response) => {
      if (!request.url?.startsWith('/api/')) {
        response.writeHead(404).end();
        return;
      }
      const forwarded = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url.slice('/api'.length),
          headers: request.headers,
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        },
      );
      request.pipe(forwarded);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { id } = await meeting(user, 'active', 'Seen through the proxy');
      const base = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api`;
      const app = await openApp(browser, base);
      opened.push(app);
      await signIn(app.page, user.key);
      await app.page
        .locator(`tr[data-meeting-id="${id}"]`)
        .getByRole('link', { name: 'Seen through the proxy' })
        .click();
      await app.page.getByRole('heading', { name: 'Transcript' }).waitFor();
      await expect.poll(() => app.page.getByTestId('meeting-status').textContent()).toBe('active');
      expect(app.watch.urls.filter((url) => !url.startsWith(`${base}/`))).toEqual([]);
      expectClean(app);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('signing in', () => {
  it('refuses a wrong key, keeps a right one in this tab only, and signs out', async () => {
    const app = await open();
    const { page } = app;
    await page.getByLabel('API key').fill('mb_not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'This key is not accepted' }).waitFor();

    await signIn(page, user.key);
    const stored = await page.evaluate(() => ({
      session: Object.values(sessionStorage),
      local: Object.keys(localStorage).length,
      cookie: document.cookie,
      url: location.href,
    }));
    expect(stored).toEqual({ session: [user.key], local: 0, cookie: '', url: `${api.baseUrl}/app/` });
    // A reload keeps the tab signed in; another tab (context) is not.
    await page.reload();
    await page.getByRole('heading', { name: 'Meetings' }).waitFor();
    const other = await open();
    await other.page.getByLabel('API key').waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    expectClean(app);
  });

  it('signs out on its own when the key stops working (revoked)', async () => {
    const owner = await api.createUser();
    const app = await signedIn(owner);
    const keys = await api.request('GET', `/admin/users/${owner.id}`, { adminKey: ADMIN_KEY });
    expect(keys.body.api_tokens.length).toBe(1);
    for (const key of keys.body.api_tokens)
      await api.request('DELETE', `/admin/tokens/${key.id}`, { adminKey: ADMIN_KEY });
    await app.page.getByText('Your API key is no longer accepted').waitFor({ timeout: 15_000 });
    await app.page.getByLabel('API key').waitFor();
  });
});

describe('the meetings list', () => {
  it('lists meetings newest first with status, platform, name and duration, a page at a time, and searches what was said and the meetings’ names', async () => {
    const owner = await api.createUser({ maxConcurrentBots: 100 });
    const made: { id: number; nativeId: string }[] = [];
    for (let index = 0; index < 23; index += 1)
      made.push(await meeting(owner, index % 3 === 0 ? 'completed' : 'requested', `Standup ${index}`));
    const app = await signedIn(owner);
    const { page } = app;
    const names = () => page.locator('table.meetings tbody tr th').allTextContents();
    await expect.poll(names).toEqual(
      made
        .slice(3)
        .reverse()
        .map((_, i) => `Standup ${22 - i}`),
    );
    const newest = page.locator('table.meetings tbody tr').first();
    expect(await newest.locator('.status').textContent()).toBe('requested');
    expect(await newest.locator('td').nth(1).textContent()).toBe('Google Meet');
    const completed = page.locator(`tr[data-meeting-id="${made[21]!.id}"]`);
    expect(await completed.locator('.status').textContent()).toBe('completed');
    expect(await completed.locator('td').nth(3).textContent()).toMatch(/^\d+ s$/);

    await page.getByRole('button', { name: 'Older' }).click();
    await expect.poll(names).toEqual(['Standup 2', 'Standup 1', 'Standup 0']);
    expect(await page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Newer' }).click();
    await expect.poll(async () => (await names()).length).toBe(20);

    // The search box searches what was said and the meetings' data (GET /search), best first.
    const spoken = made[5]!.id;
    await addSegments(api, spoken, [
      segmentRow(spoken, 'q1', 4, 7, 'The quarterly numbers look strong.', 'Alice Archer'),
      segmentRow(spoken, 'q2', 8, 9, '<img src=x onerror=alert(1)> & the budget', 'Bob Baker'),
    ]);
    const hits = page.locator('ol.hits li');
    await page.getByLabel('Search meetings').fill('quarterly number');
    await expect.poll(() => hits.count()).toBe(1);
    expect(await hits.first().getAttribute('data-meeting-id')).toBe(String(spoken));
    expect(await hits.first().locator('a').textContent()).toBe('Standup 5');
    expect(await hits.first().textContent()).toContain('Alice Archer at 0:04');
    expect(await hits.first().locator('mark').allTextContents()).toEqual(['quarterly', 'numbers']);
    // Text that looks like markup is shown as text, never run.
    await page.getByLabel('Search meetings').fill('budget');
    await expect
      .poll(() => hits.first().locator('.snippet').textContent())
      .toBe('<img src=x onerror=alert(1)> & the budget');
    expect(await hits.first().locator('img').count()).toBe(0);
    await page.getByLabel('Search meetings').fill('standup 7');
    await expect.poll(() => hits.locator('a').allTextContents()).toEqual(['Standup 7']);
    expect(await hits.first().textContent()).toContain('Meeting name');
    await hits.first().locator('a').click();
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    await page.goBack();
    await page.getByLabel('Search meetings').fill('nothing like it');
    await page.getByText('Nothing matches.').waitFor();
    expectClean(app, owner.key);
  });

  it('moves statuses without a reload', async () => {
    const owner = await api.createUser();
    const { id } = await meeting(owner, 'requested', 'Live one');
    const app = await signedIn(owner);
    const status = app.page.locator(`tr[data-meeting-id="${id}"] .status`);
    await expect.poll(() => status.textContent()).toBe('requested');
    await transitionMeeting(api.database.db, id, { to: 'joining', source: 'test', botContainerId: 'c1' });
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('joining');
    await transitionMeeting(api.database.db, id, { to: 'awaiting_admission', source: 'test' });
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('awaiting admission');
    await transitionMeeting(api.database.db, id, { to: 'active', source: 'test' });
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('active');
  });
});

describe('sending a bot', () => {
  it('checks the link, shows the API’s field errors, and lists the new meeting at once', async () => {
    const owner = await api.createUser({ maxConcurrentBots: 100 });
    const app = await signedIn(owner);
    const { page } = app;
    const send = () => page.getByRole('button', { name: 'Send bot' }).click();

    await page.getByLabel('Meeting link').fill('https://example.com/not-a-meeting');
    await send();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Not a Google Meet, Microsoft Teams or Zoom meeting link' })
      .waitFor();
    expect(await page.getByLabel('Meeting link').getAttribute('aria-invalid')).toBe('true');

    // The API's answer, on the field it names: the embedded engine transcribes English only.
    await page.getByLabel('Meeting link').fill('http://127.0.0.1:4100/abc-defg-hij');
    await page.getByLabel('Language').fill('de');
    await send();
    const languageError = page.locator('#send-language-error');
    await languageError.waitFor();
    expect(await languageError.textContent()).toMatch(/^language: the embedded engine transcribes only en/);
    expect(await page.getByLabel('Language').getAttribute('aria-invalid')).toBe('true');

    // A host the deployment doesn't allow: the API's meeting_url error, on the link.
    await page.getByLabel('Language').fill('');
    await page.getByLabel('Meeting link').fill('https://meet.example.org/abc-defg-hij');
    await send();
    await expect.poll(() => page.locator('#send-link-error').textContent()).toMatch(/^meeting_url: /);

    await page.getByLabel('Meeting link').fill('http://127.0.0.1:4100/abc-defg-hij');
    await page.getByLabel('Bot name').fill('Minutes <b>taker</b>');
    await page.getByLabel('Language').fill('en');
    await send();
    await page.getByText('Bot sent to abc-defg-hij.').waitFor();
    const listed = await api.request('GET', '/meetings', { key: owner.key });
    const created = listed.body.meetings[0];
    expect(created).toMatchObject({ native_meeting_id: 'abc-defg-hij', status: 'requested' });
    await page
      .locator(`tr[data-meeting-id="${created.id}"] .status`)
      .filter({ hasText: 'requested' })
      .waitFor();

    // The same meeting again while its bot is in flight: the API's 409, for the whole form.
    await page.getByLabel('Meeting link').fill('http://127.0.0.1:4100/abc-defg-hij');
    await send();
    await page.locator('#send-form-error').waitFor();

    // Teams: the passcode travels in the link.
    await page.getByLabel('Meeting link').fill('http://127.0.0.1:4100/meet/9387456120384?p=Xy12ab');
    await page.getByLabel("Record the meeting's audio").uncheck();
    await send();
    await page.getByText('Bot sent to 9387456120384.').waitFor();
    const teams = (await api.request('GET', '/meetings', { key: owner.key })).body.meetings[0];
    expect(teams).toMatchObject({ platform: 'teams', native_meeting_id: '9387456120384' });
    expect(await page.locator(`tr[data-meeting-id="${teams.id}"] td`).first().textContent()).toBe(
      'requested',
    );
    expectClean(app, owner.key);
  });
});

describe('a meeting', () => {
  it('shows the transcript growing live, replaces a changing segment in place, and escapes every text', async () => {
    const { id } = await meeting(user, 'active', 'Planning <img src=x onerror="window.pwned=1">');
    await addSegments(api, id, [
      segmentRow(id, 's1', 1, 3, 'Good morning everyone.', 'Alice Archer'),
      segmentRow(id, 's2', 4, 6, '<script>window.pwned=2</script><b>bold?</b>', '<i>Bob</i> & co'),
    ]);
    const app = await signedIn();
    await openMeeting(app, id);
    const { page } = app;
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Planning <img src=x onerror="window.pwned=1">',
    );
    expect(await rows(page).nth(1).locator('.speaker').textContent()).toBe('<i>Bob</i> & co');
    expect(await rows(page).nth(1).locator('.text').textContent()).toBe(
      '<script>window.pwned=2</script><b>bold?</b>',
    );
    expect(
      await page.evaluate(() => ({
        pwned: (window as { pwned?: number }).pwned,
        imgs: document.images.length,
      })),
    ).toEqual({
      pwned: undefined,
      imgs: 0,
    });

    // A new segment, then a mutable one sent again with the same id: replaced, not added.
    await addSegments(api, id, [segmentRow(id, 's3', 7, 8, 'Let me', 'Alice Archer', { final: false })]);
    await expect.poll(() => rows(page).count()).toBe(3);
    expect(await rows(page).nth(2).textContent()).toContain('(still changing)');
    await addSegments(api, id, [segmentRow(id, 's3', 7, 9.5, 'Let me share my screen.', 'Alice Archer')]);
    await expect.poll(() => rows(page).nth(2).locator('.text').textContent()).toBe('Let me share my screen.');
    expect(await rows(page).count()).toBe(3);
    expect(await rows(page).nth(2).textContent()).not.toContain('(still changing)');
    expect(await rows(page).allInnerTexts()).toEqual([
      expect.stringContaining('Alice Archer'),
      expect.stringContaining('<i>Bob</i> & co'),
      expect.stringContaining('Alice Archer'),
    ]);

    // A status change with its reason, live; the history lists it.
    await transitionMeeting(api.database.db, id, { to: 'completed', source: 'bot', reason: 'meeting_ended' });
    await announce(api, id);
    await expect
      .poll(() => page.getByTestId('meeting-status').textContent())
      .toBe('completed (meeting ended)');
    await page.locator('.history li').filter({ hasText: 'meeting ended' }).waitFor();
    expect(await page.locator('.history li').allInnerTexts()).toEqual([
      expect.stringContaining('requested'),
      expect.stringContaining('joining'),
      expect.stringContaining('awaiting admission'),
      expect.stringContaining('active'),
      expect.stringContaining('completed'),
    ]);
    expectClean(app);
  });

  it('draws only the rows on screen, follows new segments at the bottom and stops when scrolled up', async () => {
    const { id } = await meeting(user, 'active');
    const many = Array.from({ length: 2000 }, (_, i) =>
      segmentRow(
        id,
        `m${i}`,
        i * 3,
        i * 3 + 2.5,
        `Sentence number ${i} of a long meeting.`,
        `Speaker ${i % 4}`,
      ),
    );
    for (let i = 0; i < many.length; i += 500) await addSegments(api, id, many.slice(i, i + 500));
    const app = await signedIn();
    await openMeeting(app, id);
    const { page } = app;
    const scroller = page.locator('.transcript-scroller');
    await expect.poll(() => scroller.getAttribute('data-segments')).toBe('2000');
    expect(await rows(page).count()).toBeLessThan(60);
    const position = () =>
      scroller.evaluate((box) => ({
        bottomGap: box.scrollHeight - box.clientHeight - box.scrollTop,
        top: box.scrollTop,
      }));
    // It opens at the latest segment, and follows the next.
    await expect.poll(async () => (await position()).bottomGap).toBeLessThan(2);
    await rows(page).filter({ hasText: 'Sentence number 1999 ' }).waitFor();
    await addSegments(api, id, [
      segmentRow(id, 'next', 6001, 6003, 'A new sentence at the end.', 'Speaker 1'),
    ]);
    await rows(page).filter({ hasText: 'A new sentence at the end.' }).waitFor();
    await expect.poll(async () => (await position()).bottomGap).toBeLessThan(2);

    // Scrolled up: new segments no longer move the view; "Jump to latest" brings it back.
    await scroller.hover();
    await page.mouse.wheel(0, -3000);
    await page.getByRole('button', { name: 'Jump to latest' }).waitFor();
    const before = (await position()).top;
    expect(before).toBeGreaterThan(0);
    await addSegments(api, id, [
      segmentRow(id, 'later', 6004, 6005, 'Said while reading above.', 'Speaker 2'),
    ]);
    await expect.poll(() => scroller.getAttribute('data-segments')).toBe('2002');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await position()).top).toBe(before);
    const firstShown = await rows(page).first().getAttribute('data-index');
    expect(Number(firstShown)).toBeGreaterThan(1800);
    await page.getByRole('button', { name: 'Jump to latest' }).click();
    await rows(page).filter({ hasText: 'Said while reading above.' }).waitFor();
    await expect.poll(async () => (await position()).bottomGap).toBeLessThan(2);
    expectClean(app);
  });

  it('plays the recording in step: the playing segment is highlighted, and a click seeks', async () => {
    const { id } = await meeting(user, 'completed', 'Recorded');
    await readyRecording(api, user, id, oggOpus(20), 20);
    await addSegments(api, id, [
      segmentRow(id, 'p0', 0.2, 4.5, 'First part.', 'Alice'),
      segmentRow(id, 'p1', 5, 9.5, 'Second part.', 'Bob'),
      segmentRow(id, 'p2', 10, 14.5, 'Third part.', 'Alice'),
      segmentRow(id, 'p3', 15, 19.5, 'Fourth part.', 'Bob'),
    ]);
    const app = await signedIn();
    await openMeeting(app, id);
    const { page } = app;
    const audio = page.locator('audio');
    await audio.waitFor();
    await expect.poll(() => rows(page).count()).toBe(4);
    const current = () =>
      page
        .locator('li.segment[aria-current="true"] .text')
        .textContent({ timeout: 1000 })
        .catch(() => null);

    // A click on the third segment's time seeks there and plays; the highlight is on it.
    await audio.evaluate((element: HTMLAudioElement) => {
      element.muted = true;
    });
    await page.getByRole('button', { name: 'Play from 0:10' }).click();
    await expect
      .poll(() => audio.evaluate((element: HTMLAudioElement) => element.currentTime))
      .toBeGreaterThanOrEqual(10);
    expect(await current()).toBe('Third part.');
    // Playback moves on into the fourth segment, and the highlight follows it.
    await expect.poll(current, { timeout: 15_000 }).toBe('Fourth part.');
    const time = await audio.evaluate((element: HTMLAudioElement) => element.currentTime);
    expect(time).toBeGreaterThanOrEqual(15);

    // Seeking with the player itself moves the highlight too.
    await audio.evaluate((element: HTMLAudioElement) => {
      element.pause();
      element.currentTime = 6;
    });
    await expect.poll(current).toBe('Second part.');
    expectClean(app);
  });

  it('edits details, changes the bot’s language, speaks and writes in the chat, stops the bot, exports and deletes', async () => {
    const { id, nativeId } = await meeting(user, 'active');
    await addSegments(api, id, [segmentRow(id, 'e1', 1, 2.5, 'Hello & welcome.', 'Alice')]);
    const app = await signedIn();
    await openMeeting(app, id);
    const { page } = app;

    await page.getByLabel('Name').fill('Quarterly review');
    await page.getByLabel('Notes').fill('Agenda: numbers, then plans.');
    await page.getByLabel('Participants').fill('Alice, Bob\nCarol');
    await page.getByRole('button', { name: 'Save details' }).click();
    await page.getByText('Saved.').waitFor();
    const stored = await api.request('GET', `/meetings/${id}`, { key: user.key });
    expect(stored.body.data).toEqual({
      name: 'Quarterly review',
      notes: 'Agenda: numbers, then plans.',
      participants: ['Alice', 'Bob', 'Carol'],
    });

    // The bot's commands travel the command stream; the API answers 202 or says why not.
    await page.getByLabel('Change the transcription language').fill('de');
    await page.getByRole('button', { name: 'Change language' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'language: the embedded engine transcribes only en' })
      .waitFor();
    await page.getByLabel('Change the transcription language').fill('en');
    await page.getByRole('button', { name: 'Change language' }).click();
    await page.getByText('Language changed to en').waitFor();
    await page.getByLabel('Make the bot say').fill('Hello everyone.');
    await page.getByRole('button', { name: 'Speak' }).click();
    await page.getByText('The bot will say it.').waitFor();
    await page.getByLabel('Write in the meeting chat').fill('I am taking notes.');
    await page.getByRole('button', { name: 'Send to chat' }).click();
    await page.getByText('Sent to the chat.').waitFor();
    // The chat the bot reads comes in on the live stream, the bot's own lines marked.
    await insertChatMessages(api.database.db, [
      {
        meetingId: id,
        messageKey: 'm1',
        sender: 'Carol <Chen>',
        text: 'Can you share the <b>deck</b>?',
        fromBot: false,
        sentAt: new Date(),
        start: 3,
      },
      {
        meetingId: id,
        messageKey: 'm2',
        sender: 'Notetaker',
        text: 'I am taking notes.',
        fromBot: true,
        sentAt: new Date(),
        start: 4,
      },
    ]);
    await announce(api, id);
    await expect
      .poll(() => page.locator('.chat li').allInnerTexts())
      .toEqual([
        expect.stringMatching(/Carol <Chen>: Can you share the <b>deck<\/b>\?$/),
        expect.stringMatching(/Notetaker: I am taking notes\.$/),
      ]);
    expect(await page.locator('.chat li.from-bot').count()).toBe(1);

    // Exports: each format is the API's own answer, downloaded without the key in a URL.
    for (const format of ['txt', 'srt', 'vtt', 'json'] as const) {
      const label = { txt: 'Text', srt: 'SubRip (.srt)', vtt: 'WebVTT (.vtt)', json: 'JSON' }[format];
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: label }).click();
      const file = await download;
      const path = await file.path();
      const { readFile } = await import('node:fs/promises');
      const expected = await api.request('GET', `/transcripts/google_meet/${nativeId}?format=${format}`, {
        key: user.key,
      });
      expect(await readFile(path, 'utf8')).toBe(expected.text);
      if (format !== 'json') expect(file.suggestedFilename()).toBe(`google_meet-${nativeId}.${format}`);
    }

    await page.getByRole('button', { name: 'Stop the bot' }).click();
    await expect.poll(() => page.getByTestId('meeting-status').textContent()).toMatch(/^completed/);
    expect((await api.request('GET', `/meetings/${id}`, { key: user.key })).body.status).toBe('completed');

    await page.getByRole('button', { name: 'Delete meeting…' }).click();
    await page.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Meetings' }).waitFor();
    expect((await api.request('GET', `/meetings/${id}`, { key: user.key })).status).toBe(404);
    expectClean(app);
  });
});

describe('quality', () => {
  it('has no serious accessibility violations on its pages, works by keyboard, and fits a phone', async () => {
    const { id } = await meeting(user, 'active', 'Accessible meeting');
    await addSegments(api, id, [
      segmentRow(id, 'a1', 1, 3, 'Can everyone hear me?', 'Alice'),
      segmentRow(id, 'a2', 4, 6, 'Yes, loud and clear.', 'Bob'),
    ]);
    const signInPage = await open();
    expect(await seriousAccessibilityViolations(signInPage.page)).toEqual([]);

    // Keyboard only: the key field, then Enter.
    const { page } = signInPage;
    // Skip link, the home link, then the key field.
    const focused: string[] = [];
    for (let press = 0; press < 3; press += 1) {
      await page.keyboard.press('Tab');
      focused.push(
        await page.evaluate(() => document.activeElement?.id || document.activeElement?.textContent || ''),
      );
    }
    expect(focused).toEqual(['Skip to content', 'Meetbot', 'api-key']);
    await page.keyboard.type(user.key);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Meetings' }).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await openMeeting(signInPage, id);
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    for (const width of [360, 412]) {
      const phone = await signedIn(user, { width, height: 780 });
      const overflow = () =>
        phone.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await phone.page.locator('table.meetings').waitFor();
      expect(await overflow()).toBeLessThanOrEqual(0);
      await openMeeting(phone, id);
      await expect.poll(() => rows(phone.page).count()).toBe(2);
      expect(await overflow()).toBeLessThanOrEqual(0);
    }
    expectClean(signInPage);
  });
});

describe('another user', () => {
  it('never sees this user’s meetings', async () => {
    const { id } = await meeting(user, 'active', 'Private');
    const stranger = await api.createUser();
    const app = await signedIn(stranger);
    await app.page.getByText('No meetings yet').waitFor();
    await app.page.evaluate((hash) => {
      location.hash = hash;
    }, `#/meetings/${id}`);
    await app.page.getByText('This meeting does not exist').waitFor();
  });
});
