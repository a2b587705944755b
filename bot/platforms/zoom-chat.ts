import type { Page } from 'playwright-core';
import type { Logger } from '../../shared/infra/logger.js';
import type { PanelChatMessage, PlatformChat } from './driver.js';
import { clickButton } from './page-actions.js';

/** The footer's chat button, named by what it does (docs/platform-landmarks.md, "Zoom", chat). */
export const ZOOM_CHAT_BUTTON = ['open the chat panel', 'chatbereich öffnen'] as const;
/** The compose box: the rich-text editor (TipTap / ProseMirror) in the panel's footer. */
const ZOOM_CHAT_INPUT = '.chat-rtf-box__editor-outer [contenteditable="true"], .tiptap.ProseMirror';
/** The panel's send button. */
const ZOOM_CHAT_SEND = 'button.chat-rtf-box__send, button[aria-label="send"]';
/** What Zoom heads the page's own messages with, where its text box has no `--self` modifier. */
const ZOOM_SELF_SENDERS = ['You', 'Ich', 'Sie'];

/**
 * Reads the panel's list. Each `.new-chat-message__container` row is one message, its text in the
 * `.new-chat-message__text-box` (`--self` on the page's own). The sender is in the header of the
 * run's first message (`.chat-item__sender`, `data-name`), found walking back through the earlier
 * `.chat-item-container`s; the list is virtualized, so when that header is scrolled out of the DOM
 * the row's aria-label ("Alice to Everyone, 9:05 AM, hello") gives it: the label without its text
 * and time at the end, and without " to <receiver>".
 */
const READ_ZOOM_CHAT = `(() => {
  const out = [];
  const textOf = (el) => (el?.innerText ?? el?.textContent ?? '').trim();
  const headerSender = (item) => {
    for (let node = item; node; node = node.previousElementSibling) {
      const sender = node.querySelector?.('.chat-item__sender');
      if (sender) return sender.getAttribute('data-name') || textOf(sender);
    }
    return null;
  };
  const labelSender = (label, text) => {
    let rest = label.trim();
    if (text && rest.endsWith(text)) rest = rest.slice(0, rest.length - text.length).replace(/,\\s*$/, '');
    const lastComma = rest.lastIndexOf(', ');
    if (lastComma >= 0) rest = rest.slice(0, lastComma);
    const to = Math.max(rest.lastIndexOf(' to '), rest.lastIndexOf(' an '));
    return (to > 0 ? rest.slice(0, to) : rest).trim() || null;
  };
  for (const row of document.querySelectorAll('.new-chat-message__container')) {
    const box = row.querySelector('.new-chat-message__text-box') ?? row;
    const text = textOf(box);
    if (!text) continue;
    const item = row.closest('.chat-item-container');
    const key = item?.getAttribute('data-id') || row.id;
    if (!key) continue;
    const sender = (item && headerSender(item)) ?? labelSender(row.getAttribute('aria-label') ?? '', text);
    const self = box.classList.contains('new-chat-message__text-box--self');
    out.push({ key, sender, self, text });
  }
  return out;
})()`;

export class ZoomChat implements PlatformChat {
  constructor(
    private readonly page: Page,
    private readonly log: Logger,
  ) {}

  private input() {
    return this.page.locator(ZOOM_CHAT_INPUT).first();
  }

  async open(): Promise<boolean> {
    if (
      await this.input()
        .isVisible()
        .catch(() => false)
    )
      return true;
    // The button toggles the panel (then named "close the chat panel"): pressed only when it is closed.
    if (!(await clickButton(this.page, ZOOM_CHAT_BUTTON))) {
      this.log.debug('no chat button found');
      return false;
    }
    try {
      await this.input().waitFor({ state: 'visible', timeout: 3000 });
      return true;
    } catch {
      return false;
    }
  }

  async read(): Promise<PanelChatMessage[]> {
    const raw = (await this.page.evaluate(READ_ZOOM_CHAT)) as {
      key: string;
      sender: string | null;
      self: boolean;
      text: string;
    }[];
    return raw.map((m) => {
      const own = m.self || (m.sender !== null && ZOOM_SELF_SENDERS.includes(m.sender));
      return {
        key: m.key,
        sender: own ? null : m.sender,
        own,
        text: m.text,
        // The header shows the clock to the minute only.
        sentAt: null,
      };
    });
  }

  async send(text: string): Promise<void> {
    if (!(await this.open())) throw new Error('the chat panel did not open');
    const input = this.input();
    // Through the box itself, never the page's keyboard: each call focuses the box first (no pointer
    // needed), so an Enter can't reach a control the bot pressed meanwhile (the camera toggle it
    // clicked for an image would switch off). The editor takes the inserted text as input; Enter
    // sends (the send button when the text is still there).
    await input.fill(text, { timeout: 5000 });
    await input.press('Enter', { timeout: 5000 });
    if (((await input.textContent().catch(() => '')) ?? '').trim() === text.trim()) {
      await this.page
        .locator(ZOOM_CHAT_SEND)
        .first()
        .click({ timeout: 3000 })
        .catch(() => {});
    }
  }
}
