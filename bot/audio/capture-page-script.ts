/**
 * Runs in the meeting page before the page's own scripts (addInitScript). It only notes the remote
 * audio tracks the page receives (RTCPeerConnection `track` events, MediaStreams assigned to media
 * elements, tracks added to them later) until Node asks it to start; then it mixes every one of
 * them, present and future, in a 16 kHz AudioContext and hands Int16 chunks to Node as base64.
 *
 * Kept as a plain-JavaScript string: functions transpiled by tsx/esbuild carry helper calls that
 * don't exist in the page.
 */
export const AUDIO_BINDING = '__meetbotAudio';
export const CAPTURE_GLOBAL = '__meetbotCapture';
export const CAPTURE_SAMPLE_RATE = 16_000;
/** 200 ms per chunk: few enough crossings into Node, small enough for live transcription. */
export const CAPTURE_CHUNK_SAMPLES = 3_200;

const WORKLET_SOURCE = `
class MeetbotCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.size = ${CAPTURE_CHUNK_SAMPLES};
    this.buffer = new Int16Array(this.size);
    this.filled = 0;
    this.startTime = null;
  }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    const frames = channel ? channel.length : 128;
    if (this.startTime === null) this.startTime = currentTime;
    for (let i = 0; i < frames; i++) {
      let v = channel ? channel[i] : 0;
      if (v > 1) v = 1; else if (v < -1) v = -1;
      this.buffer[this.filled++] = v < 0 ? v * 0x8000 : v * 0x7fff;
      if (this.filled === this.size) {
        this.port.postMessage({ pcm: this.buffer.buffer, t0: this.startTime }, [this.buffer.buffer]);
        this.buffer = new Int16Array(this.size);
        this.filled = 0;
      }
    }
    return true;
  }
}
registerProcessor('meetbot-capture', MeetbotCapture);
`;

export const CAPTURE_INIT_SCRIPT = `(() => {
  if (window.${CAPTURE_GLOBAL}) return;
  const SAMPLE_RATE = ${CAPTURE_SAMPLE_RATE};
  const CHUNK = ${CAPTURE_CHUNK_SAMPLES};
  const localTrackIds = new Set();
  const known = new Map();
  const watchedStreams = new WeakSet();
  const state = { ctx: null, mix: null, t0: null, startWall: null, started: false, sources: new Map(), mode: null };

  function connect(track) {
    if (!state.started || state.sources.has(track.id) || track.readyState === 'ended') return;
    try {
      const source = state.ctx.createMediaStreamSource(new MediaStream([track]));
      source.connect(state.mix);
      state.sources.set(track.id, source);
    } catch (error) {
      console.warn('meetbot: cannot capture track', track.id, error);
    }
  }
  function disconnect(id) {
    const source = state.sources.get(id);
    if (source) { try { source.disconnect(); } catch (e) {} }
    state.sources.delete(id);
    known.delete(id);
  }
  function considerTrack(track) {
    if (!track || track.kind !== 'audio' || localTrackIds.has(track.id) || known.has(track.id)) return;
    if (track.readyState === 'ended') return;
    known.set(track.id, track);
    track.addEventListener('ended', () => disconnect(track.id));
    connect(track);
  }
  function considerStream(stream) {
    if (!(stream instanceof MediaStream)) return;
    stream.getAudioTracks().forEach(considerTrack);
    if (watchedStreams.has(stream)) return;
    watchedStreams.add(stream);
    stream.addEventListener('addtrack', (event) => considerTrack(event.track));
  }
  // Chromium keeps a remote WebRTC track silent in WebAudio unless some media element plays it.
  const players = new Map();
  function keepFlowing(track) {
    if (players.has(track.id) || track.kind !== 'audio') return;
    const player = new Audio();
    player.muted = true;
    player.srcObject = new MediaStream([track]);
    player.play().catch(() => {});
    players.set(track.id, player);
    track.addEventListener('ended', () => { player.srcObject = null; players.delete(track.id); });
  }

  const mediaDevices = navigator.mediaDevices;
  if (mediaDevices && mediaDevices.getUserMedia) {
    const getUserMedia = mediaDevices.getUserMedia.bind(mediaDevices);
    mediaDevices.getUserMedia = async (constraints) => {
      const stream = await getUserMedia(constraints);
      stream.getTracks().forEach((track) => localTrackIds.add(track.id));
      return stream;
    };
  }

  const NativePeerConnection = window.RTCPeerConnection;
  if (NativePeerConnection) {
    class PeerConnection extends NativePeerConnection {
      constructor(...args) {
        super(...args);
        this.addEventListener('track', (event) => {
          keepFlowing(event.track);
          considerTrack(event.track);
          (event.streams || []).forEach(considerStream);
        });
      }
    }
    window.RTCPeerConnection = PeerConnection;
    if (window.webkitRTCPeerConnection) window.webkitRTCPeerConnection = PeerConnection;
  }

  const srcObject = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'srcObject');
  if (srcObject && srcObject.set) {
    Object.defineProperty(HTMLMediaElement.prototype, 'srcObject', {
      configurable: true,
      enumerable: srcObject.enumerable,
      get() { return srcObject.get.call(this); },
      set(value) { srcObject.set.call(this, value); considerStream(value); },
    });
  }
  function scanMediaElements() {
    document.querySelectorAll('audio, video').forEach((element) => considerStream(element.srcObject));
  }

  function toBase64(buffer) {
    const bytes = new Uint8Array(buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000) {
      binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  }
  // Wall time of the first captured sample, from the context's own clock mapping (not from when
  // the chunk happened to reach Node).
  function captureStartWall() {
    if (state.startWall !== null || state.t0 === null) return state.startWall;
    const stamp = state.ctx.getOutputTimestamp ? state.ctx.getOutputTimestamp() : null;
    if (stamp && stamp.performanceTime > 0) {
      state.startWall = performance.timeOrigin + stamp.performanceTime - (stamp.contextTime - state.t0) * 1000;
    } else {
      state.startWall = Date.now() - (state.ctx.currentTime - state.t0) * 1000;
    }
    return state.startWall;
  }
  function deliver(buffer) {
    const send = window.${AUDIO_BINDING};
    if (typeof send === 'function') send(toBase64(buffer), captureStartWall());
  }

  async function start() {
    if (state.started) return state.mode;
    const ctx = new AudioContext({ sampleRate: SAMPLE_RATE });
    const mix = ctx.createGain();
    const mute = ctx.createGain();
    mute.gain.value = 0;
    let sink;
    try {
      const url = URL.createObjectURL(new Blob([${JSON.stringify(WORKLET_SOURCE)}], { type: 'application/javascript' }));
      await ctx.audioWorklet.addModule(url);
      URL.revokeObjectURL(url);
      sink = new AudioWorkletNode(ctx, 'meetbot-capture', {
        numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1],
        channelCount: 1, channelCountMode: 'explicit', channelInterpretation: 'speakers',
      });
      sink.port.onmessage = (event) => {
        if (state.t0 === null) state.t0 = event.data.t0;
        deliver(event.data.pcm);
      };
      state.mode = 'worklet';
    } catch (error) {
      // Pages whose policies refuse blob: worklets still get captured, on the main thread.
      console.warn('meetbot: AudioWorklet unavailable, using ScriptProcessor', error);
      sink = ctx.createScriptProcessor(4096, 1, 1);
      let pending = new Int16Array(CHUNK);
      let filled = 0;
      sink.onaudioprocess = (event) => {
        if (state.t0 === null) state.t0 = event.playbackTime;
        const input = event.inputBuffer.getChannelData(0);
        for (let i = 0; i < input.length; i++) {
          const v = Math.max(-1, Math.min(1, input[i]));
          pending[filled++] = v < 0 ? v * 0x8000 : v * 0x7fff;
          if (filled === CHUNK) { deliver(pending.buffer); pending = new Int16Array(CHUNK); filled = 0; }
        }
      };
      state.mode = 'script-processor';
    }
    mix.connect(sink);
    sink.connect(mute);
    mute.connect(ctx.destination);
    state.ctx = ctx;
    state.mix = mix;
    state.started = true;
    if (ctx.state !== 'running') await ctx.resume().catch(() => {});
    scanMediaElements();
    known.forEach((track) => connect(track));
    setInterval(scanMediaElements, 1000);
    return state.mode;
  }

  Object.defineProperty(window, '${CAPTURE_GLOBAL}', {
    value: Object.freeze({
      start,
      /** Seconds on the capture clock (the AudioContext's), or null before the first sample. */
      now: () => (state.t0 === null ? null : state.ctx.currentTime - state.t0),
      stats: () => ({ mode: state.mode, tracks: state.sources.size, state: state.ctx ? state.ctx.state : null }),
    }),
    enumerable: false,
  });
})();`;
