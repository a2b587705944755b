import type { Page } from 'playwright-core';
import type { Logger } from '../../shared/infra/logger.js';
import type { PanelChatMessage, PlatformChat } from './driver.js';
import { clickFirstVisible } from './page-actions.js';

/** The call bar's chat button (docs/platform-landmarks.md, "Chat"). */
const TEAMS_CHAT_BUTTON = '#chat-button, [data-tid="chat-button"]';
/**
 * The compose box: a contenteditable textbox (CKEditor) labelled "Type a message", or in other
 * builds "Type a new message" without the CKEditor data-tid.
 */
const TEAMS_CHAT_INPUT = [
  '[role="textbox"][contenteditable="true"][data-tid="ckeditor"]',
  ...['Type a message', 'Type a new message', 'Nachricht eingeben'].map(
    (label) => `[role="textbox"][contenteditable="true"][aria-label="${label}"]`,
  ),
].join(', ');

/**
 * Reads the pane: each `[data-tid="chat-pane-message"]` carries `data-mid` (its send time in epoch
 * ms), an author line (absent on the page's own messages), a `time[datetime]` and its text in
 * `#content-<mid>`.
 */
const READ_TEAMS_CHAT = `(() => {
  const out = [];
  const textOf = (el) => (el?.innerText ?? el?.textContent ?? '').trim();
  for (const message of document.querySelectorAll('[data-tid="chat-pane-message"]')) {
    const mid = message.getAttribute('data-mid') ?? '';
    const author = message.querySelector('[data-tid="message-author-name"], [id^="author-"]');
    const content = message.querySelector('[id^="content-"]') ?? message.querySelector('[data-message-content]');
    const text = textOf(content);
    if (!mid || !text) continue;
    const datetime = message.querySelector('time[datetime]')?.getAttribute('datetime') ?? null;
    out.push({ mid, sender: author ? textOf(author) : null, text, datetime });
  }
  return out;
})()`;

export class TeamsChat implements PlatformChat {
  constructor(
    private readonly page: Page,
    private readonly log: Logger,
  ) {}

  async open(): Promise<boolean> {
    const input = this.page.locator(TEAMS_CHAT_INPUT);
    if (
      await input
        .first()
        .isVisible()
        .catch(() => false)
    )
      return true;
    // The button toggles the pane: pressed only when the compose box is not there.
    if (!(await clickFirstVisible(this.page.locator(TEAMS_CHAT_BUTTON)))) {
      this.log.debug('no chat button found');
      return false;
    }
    try {
      await input.first().waitFor({ state: 'visible', timeout: 3000 });
      return true;
    } catch {
      return false;
    }
  }

  async read(): Promise<PanelChatMessage[]> {
    const raw = (await this.page.evaluate(READ_TEAMS_CHAT)) as {
      mid: string;
      sender: string | null;
      text: string;
      datetime: string | null;
    }[];
    return raw.map((m) => {
      const parsed = m.datetime === null ? Number.NaN : Date.parse(m.datetime);
      const fromMid = Number(m.mid);
      return {
        // data-mid alone can repeat when two people write in the same millisecond.
        key: `${m.mid}:${m.sender ?? ''}`,
        sender: m.sender,
        own: false,
        text: m.text,
        sentAt: Number.isFinite(parsed) ? parsed : Number.isFinite(fromMid) ? fromMid : null,
      };
    });
  }

  async send(text: string): Promise<void> {
    if (!(await this.open())) throw new Error('the chat pane did not open');
    const input = this.page.locator(TEAMS_CHAT_INPUT).first();
    // Through the box itself, never the page's keyboard: each call focuses the box first (no pointer
    // needed, so a self view or a toast laid over it does not matter), and an Enter can't reach a
    // control the bot pressed meanwhile (a camera toggle clicked for an image would switch off).
    // CKEditor takes the inserted text as input; Enter sends.
    await input.fill(text, { timeout: 5000 });
    await input.press('Enter', { timeout: 5000 });
  }
}
