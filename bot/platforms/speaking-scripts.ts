import { CAPTURE_GLOBAL } from '../audio/capture-page-script.js';

/** Receives JSON arrays of [name, speaking, captureSeconds] from the page. */
export const SPEAKING_BINDING = '__meetbotSpeaking';

/**
 * Polls the page's speaking indicators ten times a second and reports changes, stamped with the
 * capture clock (the AudioContext's), so they line up with segment times without clock mapping.
 * `detect` is a function body returning [name, speaking] pairs for the people on screen.
 */
function speakingObserver(detect: string): string {
  return `(() => {
  if (window.__meetbotSpeakingObserver) return;
  Object.defineProperty(window, '__meetbotSpeakingObserver', { value: true, enumerable: false });
  const detect = () => { ${detect} };
  let previous = new Map();
  setInterval(() => {
    const capture = window.${CAPTURE_GLOBAL};
    const clock = capture ? capture.now() : null;
    if (clock === null || typeof window.${SPEAKING_BINDING} !== 'function') return;
    let pairs;
    try { pairs = detect(); } catch (error) { return; }
    const current = new Map();
    for (const [name, speaking] of pairs) {
      if (!name) continue;
      current.set(name, Boolean(current.get(name)) || Boolean(speaking));
    }
    const changes = [];
    for (const [name, speaking] of current) {
      if (Boolean(previous.get(name)) !== speaking) changes.push([name, speaking, clock]);
    }
    for (const [name, speaking] of previous) {
      if (speaking && !current.has(name)) changes.push([name, false, clock]);
    }
    previous = current;
    if (changes.length > 0) window.${SPEAKING_BINDING}(JSON.stringify(changes));
  }, 100);
})();`;
}

/**
 * Meet: every tile with a data-participant-id other than the bot's own. Speaking shows as a
 * data-audio-level above zero, or a speaking marker attribute, on the tile or inside it; class
 * names are generated and churn, so they are not relied on.
 */
export const MEET_SPEAKING_SCRIPT = speakingObserver(`
  const iconText = /^[a-z_]+$/;
  const nameOf = (tile) => {
    const attr = tile.getAttribute('data-participant-name') || tile.getAttribute('data-name');
    if (attr) return attr.trim();
    const named = tile.querySelector('[data-participant-name], [data-name]');
    if (named) return (named.getAttribute('data-participant-name') || named.getAttribute('data-name')).trim();
    // The name's own span (the translator must leave it alone); other spans hold hover labels.
    const untranslated = tile.querySelector('span.notranslate');
    if (untranslated && (untranslated.textContent || '').trim()) return untranslated.textContent.trim();
    for (const selector of ['span', 'div']) {
      for (const el of tile.querySelectorAll(selector)) {
        if (el.children.length > 0 || el.closest('[aria-hidden="true"]')) continue;
        const text = (el.textContent || '').trim();
        if (text && text.length <= 80 && !iconText.test(text)) return text;
      }
    }
    return null;
  };
  const levelOf = (el) => {
    const raw = el.getAttribute('data-audio-level');
    const value = raw === null ? 0 : Number(raw);
    return Number.isFinite(value) ? value : 0;
  };
  const speakingIn = (tile) => {
    const marked = [tile, ...tile.querySelectorAll('[data-audio-level], [data-speaking], [aria-label]')];
    return marked.some((el) => levelOf(el) > 0 || el.getAttribute('data-speaking') === 'true'
      || /\\bis speaking\\b|\\bspeaking\\b/i.test(el.getAttribute('aria-label') || ''));
  };
  const pairs = [];
  const seen = new Set();
  document.querySelectorAll('[data-participant-id]').forEach((tile) => {
    const id = tile.getAttribute('data-participant-id');
    if (seen.has(id) || tile.hasAttribute('data-self-name') || tile.querySelector('[data-self-name]')) return;
    seen.add(id);
    pairs.push([nameOf(tile), speakingIn(tile)]);
  });
  return pairs;
`);

/**
 * Teams: video tiles whose data-tid is the display name; the voice-level outline inside shows
 * speech (its class, a data attribute or aria state change while the person talks).
 */
export const TEAMS_SPEAKING_SCRIPT = speakingObserver(`
  const pairs = [];
  document.querySelectorAll('[data-stream-type="Video"][data-tid]').forEach((tile) => {
    const outline = tile.querySelector('[data-tid="voice-level-stream-outline"]');
    let speaking = false;
    if (outline) {
      const classes = typeof outline.className === 'string' ? outline.className : outline.getAttribute('class') || '';
      const opacity = outline.style.opacity;
      speaking = /speaking|vdi-frame-occlusion/i.test(classes)
        || outline.getAttribute('data-speaking') === 'true'
        || (opacity !== '' && Number(opacity) > 0.5);
    }
    pairs.push([tile.getAttribute('data-tid'), speaking]);
  });
  return pairs;
`);
