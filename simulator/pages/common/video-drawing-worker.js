// The page's senders draw here, off the page's main thread (video-load.js): a real meeting's
// cameras are drawn and encoded on other machines, so their drawing must not take the thread the
// client's code (and a bot's clicks and audio) runs on. Each canvas arrives as an OffscreenCanvas
// whose frames show in the page's own <canvas>, which the page captures as a camera track.

import { animate } from './video-drawing.js';

const running = new Map();

self.onmessage = ({ data }) => {
  if (data.type === 'draw') running.set(data.id, animate(data.canvas, data.source));
  if (data.type === 'stop') {
    running.get(data.id)?.();
    running.delete(data.id);
  }
};
