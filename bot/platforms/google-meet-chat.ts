import type { Page } from 'playwright-core';
import type { Logger } from '../../shared/infra/logger.js';
import type { PanelChatMessage, PlatformChat } from './driver.js';
import { accessibleName, clickButton, wakeToolbar } from './page-actions.js';

/** The toolbar button that opens the chat (docs/platform-landmarks.md, "Chat"). */
export const MEET_CHAT_BUTTON = ['Chat with everyone', 'Mit allen chatten'];
/** The panel's textarea and its send button share this label. */
export const MEET_CHAT_INPUT = ['Send a message', 'Send a message to everyone', 'Nachricht senden'];
/** What Meet heads the page's own messages with. */
export const MEET_SELF_SENDERS = ['You', 'Sie'];

/**
 * Reads the panel: each `[data-message-id]` is one message without its sender; consecutive messages
 * of one sender share a header before them, so the sender is the first text of the nearest header
 * found walking back through the message's earlier siblings and its ancestors' earlier siblings.
 */
const READ_MEET_CHAT = `(() => {
  const out = [];
  const textOf = (el) => (el.innerText ?? el.textContent ?? '').trim();
  const senderOf = (message) => {
    let node = message;
    for (let depth = 0; depth < 5 && node; depth += 1) {
      let sibling = node.previousElementSibling;
      while (sibling) {
        if (!sibling.querySelector('[data-message-id]') && !sibling.hasAttribute('data-message-id')) {
          const first = [...sibling.querySelectorAll('span, div')].find((el) => el.children.length === 0 && textOf(el));
          if (first) return textOf(first);
        }
        sibling = sibling.previousElementSibling;
      }
      node = node.parentElement;
    }
    return '';
  };
  for (const message of document.querySelectorAll('[data-message-id]')) {
    const text = textOf(message);
    if (!text) continue;
    out.push({ key: message.getAttribute('data-message-id'), sender: senderOf(message), text });
  }
  return out;
})()`;

export class GoogleMeetChat implements PlatformChat {
  constructor(
    private readonly page: Page,
    private readonly log: Logger,
  ) {}

  private input() {
    return this.page.getByRole('textbox', { name: accessibleName(MEET_CHAT_INPUT) });
  }

  async open(): Promise<boolean> {
    if ((await this.input().count()) > 0) return true;
    await wakeToolbar(this.page);
    // The button toggles the panel: pressed only when the input is not there.
    if (!(await clickButton(this.page, MEET_CHAT_BUTTON))) {
      this.log.debug('no chat button found');
      return false;
    }
    try {
      await this.input().first().waitFor({ state: 'visible', timeout: 3000 });
      return true;
    } catch {
      return false;
    }
  }

  async read(): Promise<PanelChatMessage[]> {
    const raw = (await this.page.evaluate(READ_MEET_CHAT)) as { key: string; sender: string; text: string }[];
    return raw.map((m) => ({
      key: m.key,
      sender: MEET_SELF_SENDERS.includes(m.sender) ? null : m.sender,
      own: MEET_SELF_SENDERS.includes(m.sender),
      text: m.text,
      // Meet's header shows the clock to the minute only.
      sentAt: null,
    }));
  }

  async send(text: string): Promise<void> {
    if (!(await this.open())) throw new Error('the chat panel did not open');
    const input = this.input().first();
    await input.fill(text, { timeout: 5000 });
    // The send button is enabled once the textarea has text; Enter does the same.
    if (!(await clickButton(this.page, MEET_CHAT_INPUT))) await input.press('Enter');
  }
}
