// The meeting hearing the bot: while the bot's microphone is on in the call, the page takes the
// microphone track with its own getUserMedia (as the real pages do when you unmute), records what
// it carries at 16 kHz and sends it to the simulator in order, so the simulator's recognizer can
// say what the remote participants heard. Muting (or leaving) closes the span.

const SAMPLE_RATE = 16000;
const CHUNK = 1600; // 100 ms

const WORKLET = `
class SimMicrophone extends AudioWorkletProcessor {
  constructor() { super(); this.buffer = new Int16Array(${CHUNK}); this.filled = 0; }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    const frames = channel ? channel.length : 128;
    for (let i = 0; i < frames; i++) {
      let v = channel ? channel[i] : 0;
      if (v > 1) v = 1; else if (v < -1) v = -1;
      this.buffer[this.filled++] = v < 0 ? v * 0x8000 : v * 0x7fff;
      if (this.filled === this.buffer.length) {
        this.port.postMessage(this.buffer.buffer, [this.buffer.buffer]);
        this.buffer = new Int16Array(${CHUNK});
        this.filled = 0;
      }
    }
    return true;
  }
}
registerProcessor('sim-microphone', SimMicrophone);
`;

function toBase64(buffer) {
  const bytes = new Uint8Array(buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

export class PageMicrophone {
  /** live(): whether the bot's mic is on in the call now; report(action): the session's ordered reports. */
  constructor({ live, report }) {
    this.live = live;
    this.report = report;
    this.sending = false;
    this.starting = null;
    this.stream = null;
    this.context = null;
    this.timer = setInterval(() => this.follow(), 100);
  }

  /**
   * Opens the microphone on the first unmute and keeps it; what is sent follows the toggle chunk by
   * chunk (chunk() asks live() itself), so the first words after an unmute are not lost to this poll.
   */
  follow() {
    const live = this.live();
    if (live && !this.stream && !this.starting) {
      this.starting = this.open().catch((error) => console.warn('simulator: no microphone', error));
    }
    if (!live && this.sending) {
      this.sending = false;
      this.report({ type: 'mic-closed', at: new Date().toISOString() });
    }
  }

  async open() {
    this.stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    this.context = new AudioContext({ sampleRate: SAMPLE_RATE });
    const url = URL.createObjectURL(new Blob([WORKLET], { type: 'application/javascript' }));
    await this.context.audioWorklet.addModule(url);
    const node = new AudioWorkletNode(this.context, 'sim-microphone');
    node.port.onmessage = (event) => this.chunk(event.data);
    this.context.createMediaStreamSource(this.stream).connect(node);
    // A worklet runs only when its output goes somewhere; a silent gain keeps it off the speakers.
    const mute = this.context.createGain();
    mute.gain.value = 0;
    node.connect(mute).connect(this.context.destination);
    await this.context.resume().catch(() => {});
  }

  chunk(buffer) {
    if (!this.live()) return;
    this.sending = true;
    this.report({ type: 'mic-audio', pcm: toBase64(buffer), at: new Date().toISOString() });
  }
}
