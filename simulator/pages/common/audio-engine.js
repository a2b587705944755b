// Plays the scripted speech the way the platforms deliver remote audio, and measures each
// person's level for the speaking indicators.
//
//   Meet "slots": 3 remote tracks played by 3 <audio> elements directly under <body>; each
//                 utterance goes to a free slot, rotating, so a slot is never one person.
//   Meet "mixed": one remote track and no <audio> element in the DOM (a detached Audio object
//                 plays it, which Chromium needs before WebAudio can read a remote track).
//   Teams:        one mixed remote track whose stream id starts with "mainAudio", on one <audio>.

import { LoopbackLink } from './loopback.js';
import { showsSignal } from './speaking.js';

const SLOT_COUNT = 3;
const LEVEL_INTERVAL_MS = 50;
const START_AHEAD_SECONDS = 0.05;
/** A 10 ms frame louder than this (about −40 dBFS) is speech, for where speech starts and ends in a clip. */
const SPEECH_RMS = 0.01;

/** Seconds of near-silence before the first and after the last speech in a clip. */
function speechBounds(buffer) {
  const data = buffer.getChannelData(0);
  const frame = Math.max(1, Math.round(buffer.sampleRate / 100));
  const loud = (from) => {
    let sum = 0;
    const to = Math.min(data.length, from + frame);
    for (let i = from; i < to; i++) sum += data[i] * data[i];
    return Math.sqrt(sum / Math.max(1, to - from)) > SPEECH_RMS;
  };
  let first = 0;
  while (first < data.length && !loud(first)) first += frame;
  if (first >= data.length) return { lead: 0, tail: 0 };
  let last = Math.floor((data.length - 1) / frame) * frame;
  while (last > first && !loud(last)) last -= frame;
  const end = Math.min(data.length, last + frame);
  return { lead: first / buffer.sampleRate, tail: (data.length - end) / buffer.sampleRate };
}

export class AudioEngine {
  /**
   * meeting: the simulator's page view; report(action): sends reports to the simulator;
   * onLevel(participantId, level 0..1): called every 50 ms for each person;
   * onUtterance(event), optional: an utterance started playing ({ type: 'started', utterance,
   * speechStart, speechEnd }: wall-clock ms of its speech) or ended ({ type: 'ended', utterance,
   * complete: false when cut short }).
   */
  constructor({ meeting, report, onLevel, onUtterance }) {
    this.meeting = meeting;
    this.report = report;
    this.onLevel = onLevel;
    this.onUtterance = onUtterance;
    this.context = new AudioContext();
    this.buffers = new Map();
    this.playing = new Map();
    this.analysers = new Map();
    this.tracksReady = false;
    this.slotLastUsed = [0, 0, 0];
    this.slotBusy = [0, 0, 0];
    this.elements = [];
    // Teams and Zoom deliver one mixed track (Zoom: whatever the meeting asks, as public bots report).
    this.mode =
      meeting.platform === 'teams' ? 'teams' : meeting.platform === 'zoom' ? 'mixed' : meeting.audio.mode;
    const outputs = this.mode === 'slots' ? SLOT_COUNT : 1;
    this.outputs = Array.from({ length: outputs }, () => this.context.createMediaStreamDestination());
    for (const participant of meeting.participants) {
      const analyser = this.context.createAnalyser();
      analyser.fftSize = 1024;
      this.analysers.set(participant.id, analyser);
    }
    // A person opening the page needs a gesture before audio may start; bots run with autoplay on.
    const resume = () => this.context.resume();
    for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, resume, { capture: true });
    this.link = new LoopbackLink({ audioLevels: showsSignal(meeting, 'webrtc') });
    this.linkReady = this.link.connect();
    this.loaded = this.preload();
    if (meeting.audio.trackDelaySeconds === 0) this.negotiateStreams();
  }

  async preload() {
    await Promise.all(
      this.meeting.utterances.map(async (utterance) => {
        const response = await fetch(utterance.audioUrl);
        const data = await response.arrayBuffer();
        this.buffers.set(utterance.id, await this.context.decodeAudioData(data));
      }),
    );
  }

  /** Media starts: tracks appear now or after the meeting's delay; levels start being measured. */
  start() {
    if (this.started) return;
    this.started = true;
    this.context.resume();
    this.levelTimer = setInterval(() => this.measureLevels(), LEVEL_INTERVAL_MS);
    this.trackTimer = setTimeout(() => this.attachTracks(), this.meeting.audio.trackDelaySeconds * 1000);
  }

  /**
   * Negotiates the remote tracks. Without a track delay this runs while the bot is still in the
   * pre-join or lobby, so the tracks are there the moment media starts, as on the real sites.
   */
  negotiateStreams() {
    if (!this.negotiated) {
      this.negotiated = this.linkReady.then(async (connected) => {
        if (!connected)
          return { transport: 'webaudio', streams: this.outputs.map((output) => output.stream) };
        const streams = [];
        for (const output of this.outputs) {
          // Teams names its mixed stream "mainAudio…"; Meet's stream ids are opaque.
          const rename = this.mode === 'teams' ? `mainAudio-${crypto.randomUUID()}` : undefined;
          streams.push(await this.link.send(output.stream, rename));
        }
        return { transport: 'rtc-loopback', streams };
      });
    }
    return this.negotiated;
  }

  async attachTracks() {
    const { transport, streams } = await this.negotiateStreams();
    if (this.stopped) return;
    this.report({ type: 'transport', transport });
    for (const stream of streams) {
      const element = this.mode === 'mixed' ? new Audio() : document.createElement('audio');
      element.autoplay = true;
      element.srcObject = stream;
      if (this.mode !== 'mixed') document.body.appendChild(element);
      element.play().catch(() => {});
      this.elements.push(element);
    }
    this.keepTracksFlowing();
    this.tracksReady = true;
  }

  /**
   * The platforms' media servers send a continuous stream (or DTX, whose RTP timestamps still
   * advance through a pause). A WebAudio track with nothing playing sends no packets at all, which
   * the receiving jitter buffer reads as network delay as long as the pause: it then grows to a
   * second and swallows the pauses between turns. A silent source keeps every track flowing, from
   * when the page plays them (before that nothing takes the audio out and it would pile up).
   */
  keepTracksFlowing() {
    this.keepAlive = this.context.createConstantSource();
    this.keepAlive.offset.value = 0;
    for (const output of this.outputs) this.keepAlive.connect(output);
    this.keepAlive.start();
  }

  async play(utteranceId) {
    await this.loaded;
    const buffer = this.buffers.get(utteranceId);
    const utterance = this.meeting.utterances.find((u) => u.id === utteranceId);
    if (!buffer || !utterance || this.stopped) return;
    const source = this.context.createBufferSource();
    source.buffer = buffer;
    source.connect(this.analysers.get(utterance.participantId));
    const slot = this.mode === 'slots' ? this.pickSlot() : null;
    source.connect(this.outputs[slot ?? 0]);
    if (slot !== null) this.slotBusy[slot] += 1;
    this.playing.set(utteranceId, source);
    const speech = speechBounds(buffer);
    // Scheduled a little ahead on the audio clock, so the start is known exactly, not from when
    // this thread got round to it.
    const startsAt = this.context.currentTime + START_AHEAD_SECONDS;
    source.onended = () => {
      if (slot !== null) this.slotBusy[slot] -= 1;
      this.playing.delete(utteranceId);
      source.disconnect();
      const complete = !source.stoppedEarly;
      const end = complete ? this.wallOf(startsAt + buffer.duration) : Date.now();
      this.report({
        type: 'utterance-ended',
        utteranceId,
        at: new Date(end).toISOString(),
        speechEndedAt: complete ? new Date(end - speech.tail * 1000).toISOString() : null,
      });
      this.onUtterance?.({ type: 'ended', utterance, complete });
    };
    source.start(startsAt);
    const start = this.wallOf(startsAt);
    this.report({
      type: 'utterance-started',
      utteranceId,
      at: new Date(start).toISOString(),
      speechStartedAt: new Date(start + speech.lead * 1000).toISOString(),
      slot,
      beforeTracks: !this.tracksReady,
    });
    this.onUtterance?.({
      type: 'started',
      utterance,
      speechStart: start + speech.lead * 1000,
      speechEnd: start + (buffer.duration - speech.tail) * 1000,
    });
  }

  /**
   * Wall time (ms) at which this page's audio clock renders `contextSeconds`, from the clock's own
   * mapping read now: the audio clock can run slower than the wall clock or skip under load.
   */
  wallOf(contextSeconds) {
    const stamp = this.context.getOutputTimestamp ? this.context.getOutputTimestamp() : null;
    const now = performance.now();
    if (stamp && stamp.performanceTime > 0 && stamp.contextTime > 0 && stamp.performanceTime <= now + 1000) {
      const latency = (this.context.outputLatency || 0) * 1000;
      return (
        Date.now() - (now - stamp.performanceTime) + (contextSeconds - stamp.contextTime) * 1000 - latency
      );
    }
    return Date.now() + (contextSeconds - this.context.currentTime) * 1000;
  }

  /** A free slot, least recently used first; when all are busy, the least recently used anyway. */
  pickSlot() {
    const order = [0, 1, 2].sort((a, b) => this.slotLastUsed[a] - this.slotLastUsed[b]);
    const slot = order.find((index) => this.slotBusy[index] === 0) ?? order[0];
    this.slotLastUsed[slot] = performance.now();
    return slot;
  }

  stopUtterances(ids) {
    for (const id of ids) {
      const source = this.playing.get(id);
      if (!source) continue;
      source.stoppedEarly = true;
      source.stop();
    }
  }

  /** The bot left the call: silence everything and drop the tracks, as the platforms do. */
  stop() {
    this.stopped = true;
    clearInterval(this.levelTimer);
    clearTimeout(this.trackTimer);
    for (const source of this.playing.values()) source.stop();
    this.keepAlive?.stop();
    for (const element of this.elements) {
      element.srcObject = null;
      element.remove();
    }
    this.elements = [];
    this.link.close();
    for (const participant of this.meeting.participants) this.onLevel(participant.id, 0);
  }

  measureLevels() {
    const samples = new Float32Array(1024);
    for (const [participantId, analyser] of this.analysers) {
      analyser.getFloatTimeDomainData(samples);
      let sum = 0;
      for (const value of samples) sum += value * value;
      const rms = Math.sqrt(sum / samples.length);
      this.onLevel(participantId, Math.min(1, rms * 4));
    }
  }
}
