import { CAPTURE_GLOBAL } from '../audio/capture-page-script.js';
import { WEBRTC_SOURCE_PREFIX } from '../speakers/signals.js';
import { TILE_HELPERS } from './tile-scripts.js';

/** Receives JSON arrays of [signal, name, speaking, captureSeconds] from the page. */
export const SPEAKING_BINDING = '__meetbotSpeaking';

/** Class names the real Meet has used for a speaking tile (generated, so they churn: a hint only). */
export const MEET_KNOWN_SPEAKING_CLASSES = ['Oaajhc', 'HX2H7', 'wEsLMd', 'OgVli'] as const;

/**
 * A WebRTC source at or above this audio level (linear, 1 = full scale; 0.003 is about −50 dBov:
 * the simulator's voices read 0.02–0.09 while talking, 0.0002 between words and 0.00013 in
 * silence) is talking; it stays talking through dips shorter than the hangover (between words).
 */
const SOURCE_SPEECH_LEVEL = 0.003;
const SOURCE_HANGOVER_MS = 300;
/** A caption line whose text changed this recently is its author talking (captions come in words). */
const CAPTION_GROWING_MS = 1000;

/**
 * Helpers every platform's detectors share, as page code:
 *   attributeWatcher()  the tile_changes signal: given [tile, name] pairs, a tile is speaking while
 *                       an attribute inside it (class, style, aria-*, data-*) that has been seen
 *                       changing differs from its usual value. "Usual" is the value most of three
 *                       or more tiles show now (most people are silent at any moment; a restyling
 *                       of every tile moves the usual value with it), otherwise the value the
 *                       attribute has held longest across all tiles.
 *   sourceWatcher()     the webrtc signal: [source, speaking] from the capture script's receivers.
 */
const SHARED_HELPERS = `
  const IGNORED_ATTRIBUTES = /^(data-(participant-id|requested-participant-id|self-name|tid|stream-type|participant)|aria-(describedby|labelledby|controls|owns))$/;
  const WATCHED_ATTRIBUTE = /^(class|style|aria-.+|data-.+)$/;
  const attributeWatcher = () => {
    const time = new Map();
    const changing = new Set();
    const last = new Map();
    let lastPoll = null;
    const snapshot = (tile, name) => {
      const values = new Map();
      const walk = (element, path, depth) => {
        if (values.size > 400 || depth > 8) return;
        for (const attribute of element.attributes) {
          if (!WATCHED_ATTRIBUTE.test(attribute.name) || IGNORED_ATTRIBUTES.test(attribute.name)) continue;
          values.set(path + '|' + attribute.name, name ? attribute.value.split(name).join('{name}') : attribute.value);
        }
        let index = 0;
        for (const child of element.children) walk(child, path + '/' + index++, depth + 1);
      };
      walk(tile, '', 0);
      return values;
    };
    const usual = (key, states) => {
      const now = new Map();
      let holders = 0;
      for (const [, values] of states) {
        if (!values.has(key)) continue;
        holders += 1;
        now.set(values.get(key), (now.get(values.get(key)) || 0) + 1);
      }
      if (holders >= 3) for (const [value, count] of now) if (count * 2 > holders) return value;
      let best;
      let bestTime = -1;
      for (const [value, ms] of time.get(key) || []) if (ms > bestTime) { bestTime = ms; best = value; }
      return best;
    };
    return (tiles) => {
      const now = performance.now();
      const dt = lastPoll === null ? 0 : Math.min(500, now - lastPoll);
      lastPoll = now;
      const states = tiles.map(([tile, name]) => [name, snapshot(tile, name)]);
      for (const [name, values] of states) {
        for (const [key, value] of values) {
          const id = name + '\\u0000' + key;
          const before = last.get(id);
          if (before !== undefined && before !== value) changing.add(key);
          last.set(id, value);
          let histogram = time.get(key);
          if (!histogram) time.set(key, (histogram = new Map()));
          histogram.set(value, (histogram.get(value) || 0) + dt);
        }
      }
      return states.map(([name, values]) => {
        for (const [key, value] of values) {
          if (!changing.has(key)) continue;
          const expected = usual(key, states);
          if (expected !== undefined && value !== expected) return [name, true];
        }
        return [name, false];
      });
    };
  };
  const sourceWatcher = () => {
    const lastLoud = new Map();
    const lastStamp = new Map();
    return () => {
      const capture = window.${CAPTURE_GLOBAL};
      if (!capture || typeof capture.sourceLevels !== 'function') return [];
      const now = performance.now();
      const pairs = [];
      for (const [source, level, stamp] of capture.sourceLevels()) {
        const previous = lastStamp.get(source);
        lastStamp.set(source, { stamp, seen: previous && previous.stamp === stamp ? previous.seen : now });
        const fresh = now - lastStamp.get(source).seen < ${SOURCE_HANGOVER_MS};
        if (fresh && level >= ${SOURCE_SPEECH_LEVEL}) lastLoud.set(source, now);
        const loud = lastLoud.get(source);
        pairs.push(['${WEBRTC_SOURCE_PREFIX}' + source, loud !== undefined && now - loud < ${SOURCE_HANGOVER_MS}]);
      }
      return pairs;
    };
  };
`;

/**
 * Polls each detector ten times a second and reports changes, stamped with the capture clock (the
 * AudioContext's), so they line up with segment times without clock mapping. `detectors` is page
 * code defining `const detectors = { signal: () => [[name, speaking], ...], ... }`, one key per
 * speaking signal (names in signals.ts); a name's pairs are merged (speaking if any says so) and
 * empty names dropped. A detector that throws (a page it doesn't understand) reports nothing that
 * round.
 */
function speakingObserver(detectors: string): string {
  return `(() => {
  if (window.__meetbotSpeakingObserver) return;
  Object.defineProperty(window, '__meetbotSpeakingObserver', { value: true, enumerable: false });
  ${SHARED_HELPERS}
  ${TILE_HELPERS}
  ${detectors}
  const previous = new Map(Object.keys(detectors).map((signal) => [signal, new Map()]));
  setInterval(() => {
    const capture = window.${CAPTURE_GLOBAL};
    const clock = capture ? capture.now() : null;
    if (clock === null || typeof window.${SPEAKING_BINDING} !== 'function') return;
    const changes = [];
    for (const [signal, before] of previous) {
      let pairs;
      try { pairs = detectors[signal](); } catch (error) { continue; }
      const current = new Map();
      for (const [name, speaking] of pairs) {
        if (!name) continue;
        current.set(name, Boolean(current.get(name)) || Boolean(speaking));
      }
      for (const [name, speaking] of current) {
        if (Boolean(before.get(name)) !== speaking) changes.push([signal, name, speaking, clock]);
      }
      for (const [name, speaking] of before) {
        if (speaking && !current.has(name)) changes.push([signal, name, false, clock]);
      }
      previous.set(signal, current);
    }
    if (changes.length > 0) window.${SPEAKING_BINDING}(JSON.stringify(changes));
  }, 100);
})();`;
}

/**
 * Meet: every tile but the bot's own, named as tile-scripts.ts says; the People list's rows but
 * the bot's.
 */
export const MEET_SPEAKING_SCRIPT = speakingObserver(
  `
  const knownClasses = ${JSON.stringify(MEET_KNOWN_SPEAKING_CLASSES)};
  const tiles = () => meetTiles().filter(({ self }) => !self).map(({ tile, name }) => [tile, name]);
  const levelOf = (el) => {
    const raw = el.getAttribute('data-audio-level');
    const value = raw === null ? 0 : Number(raw);
    return Number.isFinite(value) ? value : 0;
  };
  const watchTiles = attributeWatcher();
  const detectors = {
    audio_level: () => tiles().map(([tile, name]) => {
      const marked = [tile, ...tile.querySelectorAll('[data-audio-level], [data-speaking], [aria-label]')];
      return [name, marked.some((el) => levelOf(el) > 0 || el.getAttribute('data-speaking') === 'true'
        || /\\bis speaking\\b|\\bspeaking\\b/i.test(el.getAttribute('aria-label') || ''))];
    }),
    speaking_class: () => tiles().map(([tile, name]) => [name,
      [tile, ...tile.querySelectorAll('*')].some((el) => knownClasses.some((known) => el.classList.contains(known)))]),
    tile_changes: () => watchTiles(tiles()),
    // Rows of the People list (role=list, labelled Participants): a row's mic-level element shows
    // through its opacity while the person talks.
    people_panel: () => {
      const pairs = [];
      meetPeopleLists().forEach((list) => {
        list.querySelectorAll('[role="listitem"]').forEach((row) => {
          const { name, self } = meetPerson(row);
          if (self) return;
          const speaking = [...row.querySelectorAll('*')].some((el) => {
            const opacity = el.style && el.style.opacity;
            return (opacity !== '' && opacity !== undefined && Number(opacity) > 0.1) || levelOf(el) > 0;
          });
          pairs.push([name, speaking]);
        });
      });
      return pairs;
    },
    webrtc: sourceWatcher(),
  };
`,
);

/**
 * Teams: video tiles whose data-tid is the display name; the voice-level outline inside shows
 * speech: a known class (which field reports say can stay put), its opacity, or any other
 * attribute change inside the tile. Live captions, when on, name who is talking as well.
 */
export const TEAMS_SPEAKING_SCRIPT = speakingObserver(
  `
  const tiles = () => teamsTiles().map(({ tile, name }) => [tile, name]);
  const outlineOf = (tile) => tile.querySelector('[data-tid="voice-level-stream-outline"]');
  const watchTiles = attributeWatcher();
  // Live captions: each caption line names its author; its text grows while they talk.
  const captionSeen = new WeakMap();
  const detectors = {
    captions: () => {
      const wrapper = document.querySelector('[data-tid="closed-caption-renderer-wrapper"]');
      if (!wrapper) return [];
      const now = performance.now();
      return [...wrapper.querySelectorAll('[data-tid="closed-caption-text"]')].map((line) => {
        let item = line.parentElement;
        while (item && item !== wrapper && !item.querySelector('[data-tid="author"]')) item = item.parentElement;
        const author = item && item.querySelector('[data-tid="author"]');
        const text = line.textContent || '';
        const seen = captionSeen.get(line);
        if (!seen || seen.text !== text) captionSeen.set(line, { text, changedAt: now });
        return [author ? (author.textContent || '').trim() : '', now - captionSeen.get(line).changedAt < ${CAPTION_GROWING_MS}];
      });
    },
    speaking_class: () => tiles().map(([tile, name]) => {
      const outline = outlineOf(tile);
      const classes = outline ? outline.getAttribute('class') || '' : '';
      return [name, /speaking|vdi-frame-occlusion/i.test(classes)];
    }),
    outline_style: () => tiles().map(([tile, name]) => {
      const outline = outlineOf(tile);
      if (!outline) return [name, false];
      const opacity = outline.style.opacity;
      return [name, outline.getAttribute('data-speaking') === 'true' || (opacity !== '' && Number(opacity) > 0.5)];
    }),
    tile_changes: () => watchTiles(tiles()),
    webrtc: sourceWatcher(),
  };
`,
);

/** The window property the Zoom driver sets to the bot's display name, so its own tile is left out. */
export const ZOOM_SELF_GLOBAL = '__meetbotZoomSelf';

/**
 * Zoom's web client: one mixed audio stream, so names come from the page. The large video
 * (`.speaker-active-container__video-frame`) shows the person heard last, named in its
 * `.video-avatar__avatar-footer`; the speaker bar's tile of whoever talks now gets the
 * `--active` modifier (public bots read both). The large video keeps the last speaker through a
 * silence, so on its own it says who spoke last rather than who speaks: the webrtc signal and the
 * bar's modifier bound the turns. The bot's own tile (named as the driver says) is left out.
 */
export const ZOOM_SPEAKING_SCRIPT = speakingObserver(
  `
  const self = () => String(window.${ZOOM_SELF_GLOBAL} || '').trim().toLowerCase();
  const nameOf = (frame) => {
    const footer = frame.querySelector('.video-avatar__avatar-footer');
    if (!footer) return '';
    const span = footer.querySelector('span');
    return ((span && span.textContent) || footer.textContent || '').trim();
  };
  const barTiles = () => [...document.querySelectorAll('.speaker-bar-container__video-frame, .gallery-video-container__video-frame')]
    .map((tile) => [tile, nameOf(tile)])
    .filter(([, name]) => name && name.toLowerCase() !== self());
  const watchTiles = attributeWatcher();
  const detectors = {
    active_speaker: () => {
      const pairs = barTiles().map(([tile, name]) => [name, /--active\\b/.test(tile.className || '')]);
      const main = document.querySelector('.speaker-active-container__video-frame');
      const shown = main ? nameOf(main) : '';
      if (shown && shown.toLowerCase() !== self()) {
        for (const pair of pairs) if (pair[0] === shown) pair[1] = true;
        if (!pairs.some(([name]) => name === shown)) pairs.push([shown, true]);
      }
      return pairs;
    },
    tile_changes: () => watchTiles(barTiles()),
    webrtc: sourceWatcher(),
  };
`,
);
