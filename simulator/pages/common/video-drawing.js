// The pictures the simulator's senders send (the `load` setting): a camera (a gradient, shapes in
// motion and a label with a frame count, so every frame differs as a camera's does) and a shared
// screen (slides of text lines, a new one every 20 frames, and a moving pointer). Each function
// draws one frame on a 2D context, a page's canvas or a worker's OffscreenCanvas alike.

export function drawCamera(g, { width, height }, { label, hue }, t) {
  const gradient = g.createLinearGradient(0, 0, width, height);
  gradient.addColorStop(0, `hsl(${(hue + t) % 360} 50% 35%)`);
  gradient.addColorStop(1, `hsl(${(hue + t + 120) % 360} 50% 20%)`);
  g.fillStyle = gradient;
  g.fillRect(0, 0, width, height);
  // A "face" that sways and a few moving blobs: motion across the frame, as a camera has.
  for (let i = 0; i < 6; i += 1) {
    const x = width * (0.5 + 0.4 * Math.sin((t + i * 40) / (17 + i)));
    const y = height * (0.5 + 0.4 * Math.cos((t + i * 25) / (23 + i)));
    g.fillStyle = `hsl(${(hue + i * 50) % 360} 70% ${40 + i * 5}%)`;
    g.beginPath();
    g.arc(x, y, height * (0.08 + i * 0.02), 0, Math.PI * 2);
    g.fill();
  }
  g.fillStyle = '#fff';
  g.font = `${Math.round(height / 12)}px sans-serif`;
  g.fillText(`${label} ${t}`, width * 0.05, height * 0.9);
}

/** Drawn for 1920×1080. */
export function drawScreen(g, { width, height }, _source, t) {
  const slide = Math.floor(t / 20);
  g.fillStyle = '#fafafa';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#223';
  g.font = '64px sans-serif';
  g.fillText(`Quarterly review, slide ${slide + 1}`, 120, 160);
  g.font = '36px sans-serif';
  for (let line = 0; line < 16; line += 1) {
    g.fillText(
      `• Point ${line + 1} of slide ${slide + 1}: figures, owners and the next steps`,
      140,
      260 + line * 48,
    );
  }
  g.fillStyle = '#c22';
  g.beginPath();
  g.arc(960 + 600 * Math.sin(t / 9), 540 + 300 * Math.cos(t / 7), 14, 0, Math.PI * 2);
  g.fill();
}

/** A sender's stand-in picture when its frames are replaced by an encoded clip: tiny, and moving. */
export function drawStandIn(g, { width, height }, _source, t) {
  g.fillStyle = `hsl(${(t * 7) % 360} 50% 50%)`;
  g.fillRect(0, 0, width, height);
}

export const DRAW = { camera: drawCamera, screen: drawScreen, 'stand-in': drawStandIn };

/**
 * Draws `source` ({ kind, label, hue, fps }) on `canvas` now and `fps` times a second until the
 * returned function is called.
 */
export function animate(canvas, source) {
  const g = canvas.getContext('2d');
  const draw = DRAW[source.kind];
  let frame = 0;
  const next = () => draw(g, canvas, source, frame++);
  next();
  const timer = setInterval(next, 1000 / source.fps);
  return () => clearInterval(timer);
}
