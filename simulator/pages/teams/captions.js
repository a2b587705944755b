// Teams' live captions (the `liveCaptions` trap): a region under
// data-tid="closed-caption-renderer-wrapper" holding the last few items, each the speaker's name
// (data-tid="author") and what they said (data-tid="closed-caption-text"). As on the real page an
// item trails the audio: it appears a moment after the speech starts and its text grows word by
// word over the speech, then stays put. Overlapping speech gets items growing side by side.
//
// The state lives in `ui.captions` (items in the order they were heard), so the call view can be
// rebuilt at any time; each item keeps its element, moved into the rebuilt region.

import { h } from '../common/dom.js';

/** How far the captions trail the audio. */
const CAPTION_DELAY_MS = 600;
const MAX_ITEMS = 4;
const TICK_MS = 100;
const REGION = '[data-tid="closed-caption-renderer-wrapper"]';

/** How many of the item's words are shown at `now` (wall ms): none before it appears. */
function shownWords(item, now) {
  const heardUntil = Math.min(now, item.cutAt ?? Number.POSITIVE_INFINITY) - CAPTION_DELAY_MS;
  if (heardUntil < item.from) return 0;
  const span = Math.max(1, item.to - item.from);
  return Math.min(item.words.length, Math.floor(((heardUntil - item.from) / span) * item.words.length) + 1);
}

function appeared(item, now) {
  return now >= item.from + CAPTION_DELAY_MS && shownWords(item, now) > 0;
}

export function liveCaptions(ui) {
  ui.captions = [];
  let timer = null;

  const elementOf = (item) => {
    if (!item.element) {
      item.text = h('span', { 'data-tid': 'closed-caption-text' });
      item.element = h(
        'div',
        { class: 'caption-item' },
        h('span', { 'data-tid': 'author', class: 'caption-author' }, item.author),
        item.text,
      );
    }
    const words = item.words.slice(0, shownWords(item, Date.now())).join(' ');
    if (item.text.textContent !== words) item.text.textContent = words;
    return item.element;
  };

  const visible = () => {
    const now = Date.now();
    return ui.captions.filter((item) => appeared(item, now));
  };

  const tick = () => {
    const now = Date.now();
    // The oldest items that have appeared go once more than MAX_ITEMS have.
    const shown = visible();
    const dropped = new Set(shown.slice(0, Math.max(0, shown.length - MAX_ITEMS)));
    ui.captions = ui.captions.filter((item) => !dropped.has(item));
    for (const item of dropped) item.element?.remove();
    // Elements already shown only have their text updated; new ones go at the end.
    const region = document.querySelector(REGION);
    for (const item of visible()) {
      const element = elementOf(item);
      if (region && element.parentNode !== region) region.append(element);
    }
    const growing = ui.captions.some(
      (item) => shownWords(item, now) < item.words.length && (item.cutAt ?? Number.POSITIVE_INFINITY) > now,
    );
    // Cut items that never appeared are forgotten.
    ui.captions = ui.captions.filter((item) => appeared(item, now) || item.cutAt === undefined);
    if (!growing) {
      clearInterval(timer);
      timer = null;
    }
  };

  return {
    /** The region for the call view, rebuilt from `ui.captions`. */
    region() {
      return h(
        'div',
        { 'data-tid': 'closed-caption-renderer-wrapper', class: 'captions' },
        ...visible().slice(-MAX_ITEMS).map(elementOf),
      );
    },

    /** The audio engine's utterance events. */
    heard(event) {
      if (event.type === 'ended') {
        const item = ui.captions.find((i) => i.utteranceId === event.utterance.id);
        if (item && !event.complete) item.cutAt = Date.now();
        return;
      }
      const { utterance, speechStart, speechEnd } = event;
      const words = (utterance.text ?? '').split(/\s+/).filter(Boolean);
      const author = ui.meeting.participants.find((p) => p.id === utterance.participantId)?.name;
      if (words.length === 0 || !author) return;
      ui.captions.push({ utteranceId: utterance.id, author, words, from: speechStart, to: speechEnd });
      // In the order they appear.
      ui.captions.sort((a, b) => a.from - b.from);
      timer ??= setInterval(tick, TICK_MS);
    },

    /** The bot left the call: the captions go with it. */
    clear() {
      clearInterval(timer);
      timer = null;
      for (const item of ui.captions) item.element?.remove();
      ui.captions = [];
    },
  };
}
