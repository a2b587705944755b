/**
 * The capture's other way to hear the meeting (BOT_AUDIO_CAPTURE=track-processor): each remote audio
 * track is read as the page's receivers play it out (MediaStreamTrackProcessor: 10 ms AudioData
 * frames stamped on the page's performance clock), resampled to 16 kHz and mixed by those stamps
 * into one timeline, with no second audio clock between the receivers and the bot. The AudioContext
 * capture renders every track again on its own clock; on a host short of CPU that clock skips and
 * what it skipped is spliced out (docs/benchmarks.md, Part 3, fifth pass). Here a stretch no track
 * delivered while one was live comes out as silence in its place and is counted as unheard, so the
 * times stay right and the bot still says what it missed.
 *
 * Plain JavaScript inside the capture's init script (capture-page-script.ts): it defines
 * `createTrackMixer({ sampleRate, chunk, deliver })`, whose `deliver(int16Buffer, wallMs, unheard)`
 * gets each chunk with the wall time of its first sample and how many of its samples no track gave.
 */
/** Frames a track's processor may hold while the page's main thread is busy (10 ms each: 3 s). */
const TRACK_BUFFER_FRAMES = 300;
/** A track this far (samples at 16 kHz) behind the others is left out of what is ready (1 s). */
const STALLED_TRACK_SAMPLES = 16_000;
/** With no live track, silence is given for wall time this long past (ms). */
const SILENCE_HOLD_MS = 500;
/** With live tracks, silence is given for wall time this long past (ms): beyond what they buffer. */
const WALL_HOLD_MS = 4000;
/** The mix's ring (samples at 16 kHz): 20 s. */
const RING_SAMPLES = 320_000;

export const TRACK_MIXER_SCRIPT = `
function createTrackMixer(options) {
  const RATE = options.sampleRate;
  const CHUNK = options.chunk;
  const RING = ${RING_SAMPLES};
  const mix = new Float32Array(RING);
  const heard = new Uint8Array(RING);
  const tracks = new Map();
  // Sample 0 of the mix is at wall time origin (ms); emitted: samples handed on so far.
  const state = { origin: null, emitted: 0, unheard: 0, frames: 0, late: 0 };

  // A low-pass windowed-sinc FIR for decimating by an integer factor (cut-off at 0.9 of the new Nyquist).
  function lowPass(factor) {
    const taps = 8 * factor + 1;
    const half = (taps - 1) / 2;
    const cutoff = 0.9 / (2 * factor);
    const kernel = new Float32Array(taps);
    let sum = 0;
    for (let i = 0; i < taps; i++) {
      const n = i - half;
      const sinc = n === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * n) / (Math.PI * n);
      const window = 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (taps - 1));
      kernel[i] = sinc * window;
      sum += kernel[i];
    }
    for (let i = 0; i < taps; i++) kernel[i] /= sum;
    return kernel;
  }

  // The track's frame as 16 kHz samples: mono (planes averaged), filtered and decimated; any other
  // ratio by linear interpolation. The filter's history carries over between a track's frames.
  function resample(entry, frame) {
    const frames = frame.numberOfFrames;
    const channels = frame.numberOfChannels;
    const input = new Float32Array(frames);
    const plane = new Float32Array(frames);
    for (let c = 0; c < channels; c++) {
      frame.copyTo(plane, { planeIndex: c, format: 'f32-planar' });
      for (let i = 0; i < frames; i++) input[i] += plane[i] / channels;
    }
    const rate = frame.sampleRate;
    if (entry.rate !== rate) {
      entry.rate = rate;
      entry.factor = rate % RATE === 0 ? rate / RATE : 0;
      entry.kernel = entry.factor > 1 ? lowPass(entry.factor) : null;
      entry.history = new Float32Array(entry.kernel ? entry.kernel.length - 1 : 0);
      entry.phase = 0;
    }
    if (entry.factor === 1) return input;
    if (entry.factor > 1) {
      const kernel = entry.kernel;
      const taps = kernel.length;
      const joined = new Float32Array(entry.history.length + frames);
      joined.set(entry.history);
      joined.set(input, entry.history.length);
      const out = new Float32Array(Math.floor((frames - entry.phase + entry.factor - 1) / entry.factor));
      let o = 0;
      let i = entry.phase;
      for (; i < frames && o < out.length; i += entry.factor) {
        let acc = 0;
        for (let k = 0; k < taps; k++) acc += kernel[k] * joined[i + k];
        out[o++] = acc;
      }
      entry.phase = i - frames;
      entry.history = joined.slice(joined.length - (taps - 1));
      return out.subarray(0, o);
    }
    const step = rate / RATE;
    const count = Math.floor((frames - entry.phase) / step);
    const out = new Float32Array(Math.max(0, count));
    for (let o = 0; o < out.length; o++) {
      const x = entry.phase + o * step;
      const i = Math.floor(x);
      const next = i + 1 < frames ? input[i + 1] : input[i];
      out[o] = input[i] + (next - input[i]) * (x - i);
    }
    entry.phase = entry.phase + out.length * step - frames;
    return out;
  }

  function nowWall() { return performance.timeOrigin + performance.now(); }
  function indexOf(wall) { return Math.round(((wall - state.origin) * RATE) / 1000); }

  function write(entry, frame) {
    const wall = performance.timeOrigin + frame.timestamp / 1000;
    if (state.origin === null) state.origin = wall;
    const samples = resample(entry, frame);
    let at = indexOf(wall);
    // Follow on from the track's last frame while its stamps agree (they jitter by a fraction of a
    // millisecond); start afresh where they jump (the receiver skipped or stalled).
    if (entry.next !== null && Math.abs(at - entry.next) <= RATE / 100) at = entry.next;
    entry.next = at + samples.length;
    entry.active = true;
    for (let i = 0; i < samples.length; i++) {
      const index = at + i;
      if (index < state.emitted) { state.late += 1; continue; }
      if (index >= state.emitted + RING) emit(index - RING + CHUNK);
      const slot = index % RING;
      mix[slot] += samples[i];
      heard[slot] = 1;
    }
    state.frames += 1;
  }

  // Hands on every whole chunk before sample 'until'.
  function emit(until) {
    while (state.emitted + CHUNK <= until) {
      const pcm = new Int16Array(CHUNK);
      let unheard = 0;
      for (let i = 0; i < CHUNK; i++) {
        const slot = (state.emitted + i) % RING;
        let v = mix[slot];
        if (v > 1) v = 1; else if (v < -1) v = -1;
        pcm[i] = v < 0 ? v * 0x8000 : v * 0x7fff;
        if (!heard[slot]) unheard += 1;
        mix[slot] = 0;
        heard[slot] = 0;
      }
      const live = [...tracks.values()].some((entry) => entry.active);
      if (!live) unheard = 0;
      state.unheard += unheard;
      options.deliver(pcm.buffer, state.origin + (state.emitted * 1000) / RATE, unheard);
      state.emitted += CHUNK;
    }
  }

  // What every live track has written up to, leaving out one far behind the rest. Wall time less a
  // hold goes on regardless (silence): with no live track, a short hold (a page with no audio track
  // yet or any more); with live ones, longer than their processors can buffer (a muted track that
  // gives no frames, or frames the processor dropped while the main thread was busy).
  function ready() {
    if (state.origin === null) return;
    const heads = [...tracks.values()].filter((entry) => entry.active && entry.next !== null).map((entry) => entry.next);
    const byWall = indexOf(nowWall() - (heads.length === 0 ? ${SILENCE_HOLD_MS} : ${WALL_HOLD_MS}));
    if (heads.length === 0) { emit(byWall); return; }
    const furthest = Math.max(...heads);
    emit(Math.max(byWall, Math.min(...heads.filter((head) => head >= furthest - ${STALLED_TRACK_SAMPLES}))));
  }

  async function read(track) {
    const entry = { next: null, active: false, rate: 0, factor: 0, kernel: null, history: null, phase: 0 };
    tracks.set(track.id, entry);
    let reader;
    try {
      reader = new MediaStreamTrackProcessor({ track, maxBufferSize: ${TRACK_BUFFER_FRAMES} }).readable.getReader();
    } catch (error) {
      console.warn('meetbot: cannot read track', track.id, error);
      tracks.delete(track.id);
      return;
    }
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        try { write(entry, value); } finally { value.close(); }
        ready();
      }
    } catch (error) {
      console.warn('meetbot: track reading ended', track.id, error);
    } finally {
      tracks.delete(track.id);
      ready();
    }
  }

  setInterval(ready, 250);
  return {
    add(track) { if (!tracks.has(track.id)) read(track); },
    tracks() { return tracks.size; },
    /** Seconds into the mix at this moment (its own time line, as the AudioContext's currentTime is). */
    now() { return state.origin === null ? null : (nowWall() - state.origin) / 1000; },
    emittedSeconds() { return state.emitted / RATE; },
    stats() { return { frames: state.frames, lateSamples: state.late, unheardSeconds: state.unheard / RATE }; },
  };
}
`;
