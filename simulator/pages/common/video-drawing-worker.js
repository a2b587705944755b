// The page's senders work here, off the page's main thread (video-load.js): a real meeting's
// cameras are drawn and encoded on other machines, so their work must not take the thread the
// client's code (and a bot's clicks and audio) runs on. Each canvas arrives as an OffscreenCanvas
// whose frames show in the page's own <canvas>, which the page captures as a track; a sender's
// encoded-video transform lands here too and sends an encoded clip (encoded-clips.js).

import { clipFor, sendClip } from './encoded-clips.js';
import { animate } from './video-drawing.js';

const running = new Map();

self.onmessage = ({ data }) => {
  if (data.type === 'draw') running.set(data.id, animate(data.canvas, data.source));
  // Encodes the clips a page will send before its call starts, so the first frames need not wait.
  if (data.type === 'prepare') {
    for (const spec of data.specs)
      clipFor(spec).catch((error) => console.warn('simulator: encoded clip', error));
  }
  if (data.type === 'stop') {
    running.get(data.id)?.();
    running.delete(data.id);
  }
};

self.onrtctransform = (event) => sendClip(event.transformer);
