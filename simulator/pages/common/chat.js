// The chat panel both pages keep: one element for the page's life, so the call view can be rebuilt
// (people joining, toggles) without losing what is typed or where the focus is. Each page draws its
// own messages and input through `draw`; this keeps the draft, the open state and the sending.

export class ChatPanel {
  /**
   * ui: the page's state (ui.chat, ui.session); build(panel): makes the panel's element once;
   * draw(panel): redraws its message list from ui.chat.
   */
  constructor(ui, { build, draw }) {
    this.ui = ui;
    this.open = false;
    this.draft = '';
    this.drawList = draw;
    this.build = build;
    this.built = null;
  }

  /** Built on first use, once the meeting (and so the page's language) is known. */
  get element() {
    this.built ??= this.build(this);
    return this.built;
  }

  toggle(onChange) {
    this.open = !this.open;
    if (this.open) this.drawList(this);
    onChange?.();
  }

  /** Sends the draft, as Enter or the send button does; an empty draft sends nothing. */
  send(clearInput) {
    const text = this.draft.trim();
    if (!text) return;
    this.draft = '';
    clearInput();
    this.ui.session.act({ type: 'chat-send', text });
  }

  /**
   * Wires a contenteditable compose box (Teams' and Zoom's): what is typed is the draft, Enter
   * without Shift sends it. Returns the box's clear, for a send button to pass to `send`.
   */
  composeBox(input) {
    const clear = () => {
      input.textContent = '';
    };
    input.addEventListener('input', () => {
      this.draft = input.textContent ?? '';
    });
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        this.send(clear);
      }
    });
    return clear;
  }

  /** A message arrived: the list redraws only while the panel is open, as the real pages render it. */
  received() {
    if (this.open) this.drawList(this);
  }

  /** The panel's element for a rebuilt view, with the focus put back where it was. */
  attach() {
    if (!this.open) return null;
    const focused = this.element.contains(document.activeElement) ? document.activeElement : null;
    if (focused) queueMicrotask(() => focused.focus());
    return this.element;
  }

  clockTime(iso) {
    return new Date(iso).toLocaleTimeString('en-US', { hour: 'numeric', minute: '2-digit' });
  }
}
