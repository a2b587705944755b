// The senders' video as encoded clips (the `load` setting): each picture of video-drawing.js is
// encoded ONCE per page, in the drawing worker, as VP8 at the size and frame rate a client receives
// (two seconds of it), and the page's sender sends those frames in place of what its own encoder
// made of a tiny stand-in canvas (an RTCRtpScriptTransform here). So the page receives and decodes
// video of the real sizes and rates while it never encodes them: in a real meeting the senders'
// encoders are on other machines, and the bot's page should pay only for what a client pays.
//
// The clip plays its key frame first, then loops over its delta frames (a decoder decodes them as
// it would a live stream's; what they show after the first loop does not matter); a key frame the
// sender's encoder makes (the start, or the receiver asking for one) sends the clip's key frame.

import { DRAW } from './video-drawing.js';

const CLIP_SECONDS = 2;
/** VP8 target bitrates (bits/s) by height: what the real clients receive at those sizes. */
function bitrateFor(height) {
  if (height >= 1080) return 1_200_000;
  if (height >= 720) return 1_500_000;
  return 500_000;
}

/** clip key → Promise<{ key: ArrayBuffer, deltas: ArrayBuffer[] }> */
const clips = new Map();

export function clipKey({ kind, width, height, fps }) {
  return `${kind}-${width}x${height}@${fps}`;
}

async function encodeClip({ kind, width, height, fps }) {
  const frames = [];
  let failure = null;
  const encoder = new VideoEncoder({
    output: (chunk) => {
      const data = new ArrayBuffer(chunk.byteLength);
      chunk.copyTo(data);
      frames.push({ type: chunk.type, data });
    },
    error: (error) => {
      failure = error;
    },
  });
  encoder.configure({
    codec: 'vp8',
    width,
    height,
    bitrate: bitrateFor(height),
    framerate: fps,
    latencyMode: 'realtime',
  });
  const canvas = new OffscreenCanvas(width, height);
  const g = canvas.getContext('2d');
  const draw = DRAW[kind];
  const count = Math.max(2, Math.round(CLIP_SECONDS * fps));
  for (let i = 0; i < count; i += 1) {
    draw(g, canvas, { label: kind === 'screen' ? 'screen' : 'camera', hue: 200 }, i);
    const frame = new VideoFrame(canvas, { timestamp: Math.round((i * 1e6) / fps) });
    encoder.encode(frame, { keyFrame: i === 0 });
    frame.close();
  }
  await encoder.flush();
  encoder.close();
  if (failure) throw failure;
  const [first, ...rest] = frames;
  if (first?.type !== 'key' || rest.length === 0)
    throw new Error(`clip ${kind} ${width}x${height}: no key frame`);
  return { key: first.data, deltas: rest.map((frame) => frame.data) };
}

export function clipFor(spec) {
  const key = clipKey(spec);
  if (!clips.has(key)) clips.set(key, encodeClip(spec));
  return clips.get(key);
}

/**
 * Replaces every frame of an encoded-video transform's stream with the clip's: its key frame where
 * the encoder made a key frame, the next delta frame otherwise. Frames before the clip is ready are
 * dropped (the receiver then sees the clip from its key frame on).
 */
export function sendClip({ readable, writable, options }) {
  let clip = null;
  let next = 0;
  clipFor(options).then(
    (ready) => {
      clip = ready;
    },
    (error) => console.warn('simulator: encoded clip', error),
  );
  readable
    .pipeThrough(
      new TransformStream({
        transform(frame, controller) {
          if (!clip) return;
          if (frame.type === 'key') {
            frame.data = clip.key.slice(0);
            next = 0;
          } else {
            frame.data = clip.deltas[next].slice(0);
            next = (next + 1) % clip.deltas.length;
          }
          controller.enqueue(frame);
        },
      }),
    )
    .pipeTo(writable)
    .catch(() => {});
}
