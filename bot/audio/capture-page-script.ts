/**
 * Runs in the meeting page before the page's own scripts (addInitScript). It only notes the remote
 * audio tracks the page receives (RTCPeerConnection `track` events, MediaStreams assigned to media
 * elements, tracks added to them later) until Node asks it to start; then it mixes every one of
 * them, present and future, in a 16 kHz AudioContext (or, asked for `track-processor`, reads each
 * as it is played out: track-mixer-page-script.ts) and hands Int16 chunks to Node as base64.
 *
 * Kept as a plain-JavaScript string: functions transpiled by tsx/esbuild carry helper calls that
 * don't exist in the page.
 */
import { TRACK_MIXER_SCRIPT } from './track-mixer-page-script.js';

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
    this.chunkFrame = 0;
  }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    const frames = channel ? channel.length : 128;
    for (let i = 0; i < frames; i++) {
      if (this.filled === 0) this.chunkFrame = currentFrame + i;
      let v = channel ? channel[i] : 0;
      if (v > 1) v = 1; else if (v < -1) v = -1;
      this.buffer[this.filled++] = v < 0 ? v * 0x8000 : v * 0x7fff;
      if (this.filled === this.size) {
        this.port.postMessage({ pcm: this.buffer.buffer, frame: this.chunkFrame }, [this.buffer.buffer]);
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
  const state = { ctx: null, mix: null, t0: null, started: false, sources: new Map(), mode: null, mixer: null };
  ${TRACK_MIXER_SCRIPT}
  // Seconds the capture has rendered on its own clock (the context's, or the track mixer's).
  function rendered() {
    if (state.mixer) return state.mixer.emittedSeconds();
    return state.ctx ? state.ctx.currentTime : 0;
  }
  // How long received audio waits in WebRTC's jitter buffer before it plays (ms): the voice was
  // spoken that much before the capture hears it.
  const receive = { delayMs: 0, peers: new Set(), last: new Map(), played: new Map(), backlogMs: 0 };

  function connect(track) {
    if (!state.started || state.sources.has(track.id) || track.readyState === 'ended') return;
    if (state.mixer) { state.mixer.add(track); return; }
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
        receive.peers.add(this);
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
  // Wall time (ms) at which the context rendered the sample at contextSeconds, from the context's
  // own clock mapping read now (not from when the chunk happened to reach this thread or Node). The
  // mapping is read afresh for every chunk, so frames the render thread skips under load, or a
  // render clock slower than the wall clock, never accumulate into drift.
  function wallOf(contextSeconds) {
    const ctx = state.ctx;
    const stamp = ctx.getOutputTimestamp ? ctx.getOutputTimestamp() : null;
    const now = performance.now();
    const wallNow = Date.now();
    if (stamp && stamp.performanceTime > 0 && stamp.contextTime > 0 && stamp.performanceTime <= now + 1000) {
      // Output time of the sample, less the time between rendering and output.
      const latency = (ctx.outputLatency || 0) * 1000;
      return wallNow - (now - stamp.performanceTime) + (contextSeconds - stamp.contextTime) * 1000 - latency;
    }
    return wallNow - (ctx.currentTime - contextSeconds) * 1000;
  }
  // The median over audio receivers of the jitter-buffer delay of what they played since the last
  // look (delta of the cumulative stats), so a delay that grew or shrank counts from now on. From the
  // same stats, the median playout backlog (logged, not applied: see the comment inside).
  async function measureReceiveDelay() {
    const delays = [];
    const backlogs = [];
    for (const peer of receive.peers) {
      if (peer.connectionState === 'closed' || peer.signalingState === 'closed') {
        receive.peers.delete(peer);
        continue;
      }
      let report;
      try { report = await peer.getStats(); } catch (error) { continue; }
      report.forEach((entry) => {
        if (entry.type !== 'inbound-rtp' || entry.kind !== 'audio') return;
        if (state.started && typeof entry.totalSamplesDuration === 'number') {
          // What the receiver played out (its renderer's clock) against what the capture rendered
          // (its own clock) since both were first seen: audio waiting between the two clocks.
          const base = receive.played.get(entry.id);
          if (!base) receive.played.set(entry.id, { played: entry.totalSamplesDuration, rendered: rendered() });
          else backlogs.push((entry.totalSamplesDuration - base.played - (rendered() - base.rendered)) * 1000);
        }
        const previous = receive.last.get(entry.id);
        receive.last.set(entry.id, { delay: entry.jitterBufferDelay, count: entry.jitterBufferEmittedCount });
        if (!previous || !(entry.jitterBufferEmittedCount > previous.count)) return;
        const ms = ((entry.jitterBufferDelay - previous.delay) / (entry.jitterBufferEmittedCount - previous.count)) * 1000;
        if (ms >= 0 && ms < 10000) delays.push(ms);
      });
    }
    if (backlogs.length > 0) {
      backlogs.sort((a, b) => a - b);
      receive.backlogMs = backlogs[backlogs.length >> 1];
    }
    if (delays.length === 0) return;
    delays.sort((a, b) => a - b);
    receive.delayMs = delays[delays.length >> 1];
  }
  // Hands a chunk to Node: its first sample's wall time as heard (less the jitter buffer's delay)
  // and the seconds of it that are silence for audio no track gave (track mixer only).
  function send(buffer, wall, unheardSeconds) {
    const binding = window.${AUDIO_BINDING};
    if (typeof binding === 'function') binding(toBase64(buffer), wall - receive.delayMs, unheardSeconds);
  }
  function deliver(buffer, contextSeconds) {
    if (state.t0 === null) state.t0 = contextSeconds;
    send(buffer, wallOf(contextSeconds), 0);
  }

  function startTrackMixer() {
    state.mixer = createTrackMixer({
      sampleRate: SAMPLE_RATE,
      chunk: CHUNK,
      deliver(buffer, wall, unheard) {
        // The mixer's clock starts at its first sample: from the first chunk on, now() reads it.
        if (state.t0 === null) state.t0 = 0;
        send(buffer, wall, unheard / SAMPLE_RATE);
      },
    });
    state.mode = 'track-processor';
    state.started = true;
  }

  async function start(asked) {
    if (state.started) return state.mode;
    if (asked === 'track-processor' && typeof MediaStreamTrackProcessor === 'function') {
      startTrackMixer();
      watchTracks();
      return state.mode;
    }
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
      sink.port.onmessage = (event) => deliver(event.data.pcm, event.data.frame / SAMPLE_RATE);
      state.mode = 'worklet';
    } catch (error) {
      // Pages whose policies refuse blob: worklets still get captured, on the main thread.
      console.warn('meetbot: AudioWorklet unavailable, using ScriptProcessor', error);
      sink = ctx.createScriptProcessor(4096, 1, 1);
      let pending = new Int16Array(CHUNK);
      let filled = 0;
      let pendingStart = 0;
      sink.onaudioprocess = (event) => {
        const input = event.inputBuffer.getChannelData(0);
        for (let i = 0; i < input.length; i++) {
          if (filled === 0) pendingStart = event.playbackTime + i / SAMPLE_RATE;
          const v = Math.max(-1, Math.min(1, input[i]));
          pending[filled++] = v < 0 ? v * 0x8000 : v * 0x7fff;
          if (filled === CHUNK) { deliver(pending.buffer, pendingStart); pending = new Int16Array(CHUNK); filled = 0; }
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
    watchTracks();
    return state.mode;
  }

  // Every track the page has and will have, connected; the receivers' delay measured once a second.
  function watchTracks() {
    scanMediaElements();
    known.forEach((track) => connect(track));
    setInterval(scanMediaElements, 1000);
    setInterval(() => { measureReceiveDelay().catch(() => {}); }, 1000);
    measureReceiveDelay().catch(() => {});
  }

  Object.defineProperty(window, '${CAPTURE_GLOBAL}', {
    value: Object.freeze({
      start,
      /** Seconds on the capture clock (the AudioContext's or the track mixer's), or null before the first sample. */
      now: () => {
        if (state.t0 === null) return null;
        return state.mixer ? state.mixer.now() : state.ctx.currentTime - state.t0;
      },
      /**
       * [source, audioLevel 0..1, timestamp] for every source the page's WebRTC audio receivers
       * heard lately (synchronization and contributing sources, from the RTP level extensions).
       */
      sourceLevels: () => {
        const levels = [];
        for (const peer of receive.peers) {
          if (peer.connectionState === 'closed') continue;
          let receivers;
          try { receivers = peer.getReceivers(); } catch (error) { continue; }
          for (const receiver of receivers) {
            if (!receiver.track || receiver.track.kind !== 'audio') continue;
            const lists = [
              ['ssrc', receiver.getSynchronizationSources ? receiver.getSynchronizationSources() : []],
              ['csrc', receiver.getContributingSources ? receiver.getContributingSources() : []],
            ];
            for (const [kind, list] of lists) {
              for (const source of list) {
                if (typeof source.audioLevel === 'number') levels.push([kind + ':' + source.source, source.audioLevel, source.timestamp]);
              }
            }
          }
        }
        return levels;
      },
      stats: () => ({
        mode: state.mode,
        tracks: state.mixer ? state.mixer.tracks() : state.sources.size,
        state: state.mixer ? 'running' : state.ctx ? state.ctx.state : null,
        receiveDelayMs: receive.delayMs,
        playoutBacklogMs: receive.backlogMs,
        renderedSeconds: rendered(),
        ...(state.mixer && state.mixer.stats()),
      }),
    }),
    enumerable: false,
  });
})();`;
