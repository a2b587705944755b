/**
 * Runs in the meeting page before the page's own scripts (and before the capture script, which
 * wraps this getUserMedia and so counts these tracks as the bot's own, never as remote audio). A
 * page that asks for a microphone gets a track of a MediaStreamAudioDestinationNode, so the track
 * the platform sends as the bot's microphone carries what Node plays into it and nothing else
 * (silence between clips). Video requests still go to the browser's own (fake) camera.
 *
 * Node plays through `window.__meetbotMedia`: PCM it synthesised (base64 s16le) or a clip
 * the page decodes (decodeAudioData: wav, mp3, ogg…), each scheduled right after the previous one.
 *
 * Video requests get a canvas's captureStream track the same way (the bot's camera): black until
 * Node shows an image on it (`window.__meetbotMedia.showImage`), redrawn a few times a second
 * so a page that joins late still gets frames.
 *
 * Kept as a plain-JavaScript string, like the capture script.
 */
export const MEDIA_GLOBAL = '__meetbotMedia';

export const MEDIA_INIT_SCRIPT = `(() => {
  if (window.${MEDIA_GLOBAL}) return;
  const mediaDevices = navigator.mediaDevices;
  const state = { ctx: null, dest: null, sources: new Set(), queueEnd: 0, takenAt: null, tracks: [] };
  const camera = { canvas: null, stream: null, image: null, timer: null, takenAt: null };
  const WIDTH = 640;
  const HEIGHT = 360;

  function ensureCamera() {
    if (!camera.canvas) {
      camera.canvas = document.createElement('canvas');
      camera.canvas.width = WIDTH;
      camera.canvas.height = HEIGHT;
      paint();
      camera.stream = camera.canvas.captureStream(5);
    }
    return camera;
  }
  function paint() {
    const g = camera.canvas.getContext('2d');
    g.fillStyle = '#000';
    g.fillRect(0, 0, WIDTH, HEIGHT);
    const image = camera.image;
    if (!image) return;
    // Fitted inside the frame, its aspect kept.
    const scale = Math.min(WIDTH / image.width, HEIGHT / image.height);
    const w = image.width * scale;
    const h = image.height * scale;
    g.drawImage(image, (WIDTH - w) / 2, (HEIGHT - h) / 2, w, h);
  }

  function ensure() {
    if (!state.ctx) {
      state.ctx = new AudioContext();
      state.dest = state.ctx.createMediaStreamDestination();
    }
    if (state.ctx.state === 'suspended') state.ctx.resume().catch(() => {});
    return state;
  }
  function fromBase64(text) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }
  function schedule(buffer) {
    const { ctx, dest } = ensure();
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    source.connect(dest);
    const startAt = Math.max(ctx.currentTime + 0.01, state.queueEnd);
    source.start(startAt);
    state.queueEnd = startAt + buffer.duration;
    state.sources.add(source);
    source.onended = () => state.sources.delete(source);
    return { startsInMs: (startAt - ctx.currentTime) * 1000, durationMs: buffer.duration * 1000 };
  }

  window.${MEDIA_GLOBAL} = {
    /** When the page last took the microphone (ms since the epoch), and how many live tracks it holds. */
    taken() {
      return { at: state.takenAt, live: state.tracks.filter((t) => t.readyState === 'live').length };
    },
    playPcm(base64, sampleRate) {
      const { ctx } = ensure();
      const bytes = fromBase64(base64);
      const samples = new Int16Array(bytes.buffer, 0, Math.floor(bytes.length / 2));
      const buffer = ctx.createBuffer(1, Math.max(1, samples.length), sampleRate);
      const channel = buffer.getChannelData(0);
      for (let i = 0; i < samples.length; i++) channel[i] = samples[i] / 32768;
      return schedule(buffer);
    },
    async playEncoded(base64) {
      const { ctx } = ensure();
      const buffer = await ctx.decodeAudioData(fromBase64(base64).buffer);
      return schedule(buffer);
    },
    /** Milliseconds of audio still to play. */
    remainingMs() {
      return state.ctx ? Math.max(0, state.queueEnd - state.ctx.currentTime) * 1000 : 0;
    },
    /** Shows an image (base64 of a PNG, JPEG, GIF or WebP…) as the bot's camera until hideImage. */
    async showImage(base64) {
      const bitmap = await createImageBitmap(new Blob([fromBase64(base64)]));
      ensureCamera();
      camera.image = bitmap;
      paint();
      clearInterval(camera.timer);
      camera.timer = setInterval(paint, 200);
      return { width: bitmap.width, height: bitmap.height };
    },
    hideImage() {
      clearInterval(camera.timer);
      camera.timer = null;
      camera.image = null;
      if (camera.canvas) paint();
    },
    cameraTakenAt() {
      return camera.takenAt;
    },
    stop() {
      for (const source of state.sources) { try { source.stop(); } catch (e) {} }
      state.sources.clear();
      state.queueEnd = 0;
    },
  };

  if (!mediaDevices || !mediaDevices.getUserMedia) return;
  const getUserMedia = mediaDevices.getUserMedia.bind(mediaDevices);
  mediaDevices.getUserMedia = async (constraints) => {
    if (!constraints || (!constraints.audio && !constraints.video)) return getUserMedia(constraints);
    const stream = new MediaStream();
    // A clone per request: a page that stops its track on mute must not end the source's own.
    if (constraints.audio) {
      const { dest } = ensure();
      const track = dest.stream.getAudioTracks()[0].clone();
      state.tracks.push(track);
      state.takenAt = Date.now();
      stream.addTrack(track);
    }
    if (constraints.video) {
      stream.addTrack(ensureCamera().stream.getVideoTracks()[0].clone());
      camera.takenAt = Date.now();
    }
    return stream;
  };
})();`;
