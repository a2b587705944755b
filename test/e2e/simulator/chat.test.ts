import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZoomChat } from '../../../bot/platforms/zoom-chat.js';
import { createLogger } from '../../../shared/infra/logger.js';
import { joinMeet, joinTeams, joinZoom } from '../../support/simulator-page.js';
import { type Harness, startHarness } from './harness.js';

const TIMEOUT = { timeout: 30_000 };

/**
 * The chat panels: scripted people write at their seconds, the page keeps what arrived before its
 * panel opened and shows it on opening, and what the page sends appears in the meeting's chat under
 * the name it joined with (the snapshot) and under "You" / without an author on its own page.
 */
describe('simulator: meeting chat', () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('Google Meet: shows earlier messages when the panel opens, groups a sender, and sends under the bot name', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'google_meet',
      admission: { policy: 'open' },
      participants: [
        {
          name: 'Alice Martin',
          chat: [
            { at: 0.2, text: 'Welcome everyone' },
            { at: 0.4, text: 'Agenda is in the doc' },
          ],
        },
        // Late enough that the panel's first look (under a loaded machine's pace) shows Alice's two only.
        { name: 'Bob Chen', chat: [{ at: 10, text: 'Can you hear me?' }] },
      ],
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await joinMeet(page);
    await client.waitForBotState(meeting.id, 'in_call');
    await client.waitFor(meeting.id, (m) => m.chat.length === 2, 'the first two messages');
    // Closed panel: no messages in the page's DOM.
    await expect(page.locator('[data-message-id]').count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'Chat with everyone' }).click();
    const messages = page.locator('[data-message-id]');
    await messages.nth(1).waitFor(TIMEOUT);
    // One header for Alice's two messages; the message elements themselves carry no name.
    const groups = page.locator('.chat-group');
    await expect(groups.count()).resolves.toBe(1);
    await expect(groups.first().locator('.chat-header').textContent()).resolves.toContain('Alice Martin');
    await expect(messages.allInnerTexts()).resolves.toEqual(['Welcome everyone', 'Agenda is in the doc']);

    // A message arriving while the panel is open is drawn at once.
    await page.getByText('Can you hear me?').waitFor(TIMEOUT);

    const input = page.getByRole('textbox', { name: 'Send a message' });
    const send = page.getByRole('button', { name: 'Send a message' });
    await expect(send.isDisabled()).resolves.toBe(true);
    await input.fill('Hello from the notetaker');
    await send.click();
    await page.getByText('Hello from the notetaker').waitFor(TIMEOUT);
    await expect(input.inputValue()).resolves.toBe('');
    const last = page.locator('.chat-group').last();
    await expect(last.locator('.chat-sender').textContent()).resolves.toBe('You');

    // Enter sends too.
    await input.fill('Second line');
    await input.press('Enter');
    const snapshot = await client.waitFor(meeting.id, (m) => m.chat.length === 5, 'the bot messages');
    expect(snapshot.chat.map((m) => [m.sender, m.text, m.from])).toEqual([
      ['Alice Martin', 'Welcome everyone', 'participant'],
      ['Alice Martin', 'Agenda is in the doc', 'participant'],
      ['Bob Chen', 'Can you hear me?', 'participant'],
      ['Notetaker', 'Hello from the notetaker', 'bot'],
      ['Notetaker', 'Second line', 'bot'],
    ]);

    // Another page of the meeting shows the bot's message under the bot's name.
    const other = await browser.newPage();
    await other.goto(meeting.url);
    await other.getByLabel('Your name').fill('Observer');
    await other.getByRole('button', { name: 'Join now', exact: true }).click();
    await other.getByRole('button', { name: 'Chat with everyone' }).click();
    const botGroup = other.locator('.chat-group', { hasText: 'Hello from the notetaker' });
    await botGroup.waitFor(TIMEOUT);
    await expect(botGroup.locator('.chat-sender').textContent()).resolves.toBe('Notetaker');
    await other.close();
    await page.close();
  });

  it('Teams: chat-pane messages with data-mid and time, own messages without an author, Enter sends', async () => {
    const { client, browser } = harness;
    const meeting = await client.createMeeting({
      platform: 'teams',
      admission: { policy: 'open' },
      participants: [{ name: 'Alice Martin', chat: [{ at: 0.2, text: 'Hi from Alice' }] }],
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await joinTeams(page);
    await client.waitForBotState(meeting.id, 'in_call');
    await client.waitFor(meeting.id, (m) => m.chat.length === 1, 'the first message');

    await page.locator('[data-tid="chat-button"]').click();
    const message = page.locator('[data-tid="chat-pane-message"]').first();
    await message.waitFor(TIMEOUT);
    const mid = await message.getAttribute('data-mid');
    const snapshot = await client.getMeeting(meeting.id);
    expect(Number(mid)).toBe(Date.parse(snapshot.chat[0]!.at));
    await expect(message.locator('[data-tid="message-author-name"]').textContent()).resolves.toBe(
      'Alice Martin',
    );
    await expect(message.locator('time').getAttribute('datetime')).resolves.toBe(snapshot.chat[0]!.at);
    await expect(page.locator(`#content-${mid}`).textContent()).resolves.toBe('Hi from Alice');

    const input = page.getByRole('textbox', { name: 'Type a message' });
    // Typed and sent through the input itself (each call focuses it first), so a re-render of the
    // call on a loaded machine can't take the keystrokes elsewhere.
    await input.pressSequentially('Notes are on');
    await input.press('Enter');
    const after = await client.waitFor(meeting.id, (m) => m.chat.length === 2, 'the bot message');
    expect(after.chat[1]).toMatchObject({ sender: 'Notetaker', text: 'Notes are on', from: 'bot' });
    const own = page.locator('[data-tid="chat-pane-message"]', { hasText: 'Notes are on' });
    await own.waitFor(TIMEOUT);
    await expect(own.locator('[data-tid="message-author-name"]').count()).resolves.toBe(0);
    await expect(input.textContent()).resolves.toBe('');
    await page.close();
  });

  it('Zoom: one header per sender run, aria-labelled rows, only the rows in view in the DOM, Enter sends; the bot reads names from the rows when the header is scrolled out', async () => {
    const { client, browser } = harness;
    // Fourteen from Alice: the list keeps the last twelve rows, so her run's header is out of the DOM.
    const aliceLines = Array.from({ length: 14 }, (_, i) => `Point number ${i + 1}`);
    const meeting = await client.createMeeting({
      platform: 'zoom',
      admission: { policy: 'open' },
      participants: [
        { name: 'Alice Martin', chat: aliceLines.map((text, i) => ({ at: 0.2 + i * 0.05, text })) },
        // Late enough that the panel's first look, on a loaded machine, shows Alice's rows only.
        { name: 'Bob Chen', chat: [{ at: 25, text: 'Can you hear me?' }] },
      ],
    });
    const page = await browser.newPage();
    await page.goto(meeting.url);
    await joinZoom(page);
    await client.waitForBotState(meeting.id, 'in_call');
    await client.waitFor(meeting.id, (m) => m.chat.length === 14, "Alice's messages");
    // Closed panel: no rows in the page's DOM.
    await expect(page.locator('.new-chat-message__container').count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'open the chat panel' }).click();
    await expect(page.getByRole('button', { name: 'close the chat panel' }).count()).resolves.toBe(1);
    const rows = page.locator('.new-chat-message__container');
    await rows.nth(11).waitFor(TIMEOUT);
    await expect(rows.count()).resolves.toBe(12);
    await expect(page.locator('.chat-item__sender').count()).resolves.toBe(0);
    const first = rows.first();
    await expect(first.getAttribute('id')).resolves.toBe('chat-message-content-2');
    await expect(first.getAttribute('aria-label')).resolves.toMatch(
      /^Alice Martin to Everyone, \d{1,2}:\d{2} [AP]M, Point number 3$/,
    );

    // Bob's message, arriving while the panel is open, starts a run: a header with his name.
    await page.getByText('Can you hear me?').waitFor(TIMEOUT);
    const bobItem = page.locator('.chat-item-container', { hasText: 'Can you hear me?' });
    await expect(bobItem.locator('.chat-item__sender').getAttribute('data-name')).resolves.toBe('Bob Chen');

    const input = page.getByRole('textbox', { name: 'Type message here...' });
    await input.pressSequentially('Notes are on');
    await input.press('Enter');
    const after = await client.waitFor(meeting.id, (m) => m.chat.length === 16, 'the bot message');
    expect(after.chat[15]).toMatchObject({ sender: 'Notetaker', text: 'Notes are on', from: 'bot' });
    const own = page.locator('.new-chat-message__container', { hasText: 'Notes are on' });
    await own.waitFor(TIMEOUT);
    await expect(own.getAttribute('aria-label')).resolves.toMatch(/^You to Everyone, /);
    await expect(own.locator('.new-chat-message__text-box--self').count()).resolves.toBe(1);
    await expect(input.textContent()).resolves.toBe('');

    // The bot's reader on this page: Alice named from her rows' labels, Bob from his header, its own marked.
    const read = await new ZoomChat(page, createLogger('zoom-chat-test', 'silent')).read();
    expect(read.map((m) => [m.sender, m.text, m.own])).toEqual([
      ...aliceLines.slice(4).map((text) => ['Alice Martin', text, false]),
      ['Bob Chen', 'Can you hear me?', false],
      [null, 'Notes are on', true],
    ]);
    expect(new Set(read.map((m) => m.key)).size).toBe(read.length);
    await page.close();
  });

  it('refuses a script where someone writes while not in the call', async () => {
    const { client } = harness;
    await expect(
      client.createMeeting({
        platform: 'teams',
        participants: [{ name: 'Late Larry', joinAt: 5, chat: [{ at: 1, text: 'too early' }] }],
      }),
    ).rejects.toMatchObject({ status: 422 });
  });
});
