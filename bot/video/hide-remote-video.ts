/**
 * The `hide_remote_video` measure: a style sheet, added as soon as the page has a document, that
 * keeps every <video> element out of rendering. The tiles around them stay as they are: both
 * platforms size tiles by their grid, and the speaking signals the bot reads are the tiles' classes,
 * outlines and level elements, never a video element (bot/platforms/speaking-scripts.ts). Audio is
 * untouched: it plays through <audio> elements and is captured from the WebRTC tracks themselves.
 *
 * Plain JavaScript in a string (it runs in the page): see bot/audio/capture-page-script.ts.
 */
export const HIDE_REMOTE_VIDEO_CSS = 'video { display: none !important; }';

export const HIDE_REMOTE_VIDEO_SCRIPT = `
  (() => {
    const style = document.createElement('style');
    style.setAttribute('data-meetbot', 'hide-remote-video');
    style.textContent = ${JSON.stringify(HIDE_REMOTE_VIDEO_CSS)};
    const add = () => {
      const root = document.head || document.documentElement;
      if (!root) return false;
      if (!style.isConnected) root.append(style);
      return true;
    };
    if (!add()) document.addEventListener('DOMContentLoaded', add, { once: true });
    // A page that replaces its <head> or <html> drops the sheet: put it back (only those two
    // levels are watched, not the busy DOM below them).
    const watch = new MutationObserver(() => {
      add();
      if (document.documentElement) watch.observe(document.documentElement, { childList: true });
    });
    watch.observe(document, { childList: true });
    if (document.documentElement) watch.observe(document.documentElement, { childList: true });
  })();
`;
