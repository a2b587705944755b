// The video a real meeting sends a page (the `load` setting): each present participant's camera
// and a screen share, drawn on canvases, captured, encoded by Chromium and delivered to the page as
// REMOTE WebRTC video tracks through a loopback RTCPeerConnection pair (loopback.js), as the audio
// is. The page plays each remote track in a <video> element, so it receives, decodes and renders
// them as the real clients do. The videos sit in a layer behind the page's own screens and take no
// clicks; the bot's selectors never see them as tiles.
//
// The page's "incoming video" setting (Meet's receive resolution "Audio only", Teams' "Turn off
// incoming video": incoming() false) stops the cameras, as the real clients do; a screen share keeps
// coming, as presentations do on both. For tests the page reports, every two seconds, how many video
// frames it has decoded so far (inbound-rtp framesDecoded, cameras and screen apart).
//
// The senders work in a worker (video-drawing-worker.js), off the main thread the client's own
// code runs on, and send encoded clips (encoded-clips.js): each picture is encoded once per page at
// its real size, and the senders' own encoders only encode a tiny stand-in, so the page pays for
// receiving, decoding and showing the video, as a client does, and little for producing it. Where
// the browser has no encoded transforms, the senders draw and encode their pictures live.

import { LoopbackLink } from './loopback.js';
import { animate } from './video-drawing.js';

/** Real clients' receive sizes: one large tile, the rest of the grid at 360p (docs/benchmarks.md). */
const LARGE = { width: 1280, height: 720, fps: 30 };
const GRID = { width: 640, height: 360, fps: 15 };
const SCREEN = { width: 1920, height: 1080, fps: 5 };
const MAX_CAMERAS = 9;
/** `half`: the screen share is on for this long, then off for as long, from the start of the call. */
const SCREEN_SHARE_PERIOD_MS = 30_000;
const REPORT_INTERVAL_MS = 2000;

let nextSourceId = 1;
let drawingWorker;

/** The one worker that draws every sender's canvas of this page; null where there can't be one. */
function sharedDrawingWorker() {
  if (drawingWorker !== undefined) return drawingWorker;
  drawingWorker = null;
  if (typeof Worker === 'function' && 'transferControlToOffscreen' in HTMLCanvasElement.prototype) {
    try {
      drawingWorker = new Worker(new URL('./video-drawing-worker.js', import.meta.url), { type: 'module' });
    } catch (error) {
      console.warn('simulator: senders draw on the main thread', error);
    }
  }
  return drawingWorker;
}

/** Whether senders can send encoded clips (encoded-clips.js) rather than encode their pictures. */
function encodedClipsSupported() {
  return (
    sharedDrawingWorker() !== null &&
    typeof RTCRtpScriptTransform === 'function' &&
    typeof VideoEncoder === 'function' &&
    typeof RTCRtpSender.getCapabilities === 'function'
  );
}

/** The sender's frames become the clip's (in the drawing worker), sent as VP8. */
function sendEncodedClip(sender, transceiver, spec) {
  sender.transform = new RTCRtpScriptTransform(sharedDrawingWorker(), spec);
  const codecs = RTCRtpSender.getCapabilities('video')?.codecs ?? [];
  const vp8 = codecs.filter((codec) => codec.mimeType.toLowerCase() === 'video/vp8');
  if (transceiver && vp8.length > 0) transceiver.setCodecPreferences(vp8);
}

/** The stand-in a sender encodes when it sends an encoded clip: tiny, so encoding it costs little. */
const STAND_IN = { width: 64, height: 36 };

/**
 * A sender's moving picture (video-drawing.js): a canvas drawn `fps` times a second, off the main
 * thread where the browser allows it, and captured as a video track.
 */
class CanvasSource {
  constructor(kind, size, label, hue) {
    const canvas = document.createElement('canvas');
    canvas.width = size.width;
    canvas.height = size.height;
    const source = { kind, label, hue, fps: size.fps };
    const worker = sharedDrawingWorker();
    if (worker) {
      const id = nextSourceId++;
      const offscreen = canvas.transferControlToOffscreen();
      worker.postMessage({ type: 'draw', id, canvas: offscreen, source }, [offscreen]);
      this.stopDrawing = () => worker.postMessage({ type: 'stop', id });
    } else {
      this.stopDrawing = animate(canvas, source);
    }
    this.stream = canvas.captureStream(size.fps);
  }

  stop() {
    this.stopDrawing();
    for (const track of this.stream.getTracks()) track.stop();
  }
}

export class VideoLoad {
  /**
   * load: the meeting's `load` setting; live(): whether the page is in the call now; present(): the
   * participants in the call now, in the order they came; incoming(): whether the page's incoming
   * video is on; report(action): sends a page action to the simulator.
   */
  constructor({ load, live, present, incoming, report }) {
    this.load = load;
    this.live = live;
    this.present = present;
    this.incoming = incoming;
    this.report = report;
    /** Frames decoded by streams that have ended, per kind. */
    this.ended = { camera: 0, screen: 0 };
    this.lastReport = '';
    this.link = null;
    this.connecting = null;
    /** participant id (or 'screen') → { source, video } */
    this.shown = new Map();
    /** Keys whose stream is being set up (not in `shown` yet, but on its way). */
    this.opening = new Set();
    this.busy = false;
    this.startedAt = null;
    if (encodedClipsSupported()) {
      const specs = [];
      if (load.cameras) specs.push({ kind: 'camera', ...LARGE }, { kind: 'camera', ...GRID });
      if (load.screenShare !== 'off') specs.push({ kind: 'screen', ...SCREEN });
      sharedDrawingWorker().postMessage({ type: 'prepare', specs });
    }
    this.layer = document.createElement('div');
    this.layer.setAttribute('data-sim', 'video-load');
    this.layer.setAttribute('aria-hidden', 'true');
    this.layer.style.cssText =
      'position:fixed;inset:0;z-index:-1;display:flex;flex-wrap:wrap;align-content:flex-start;pointer-events:none;overflow:hidden';
    document.body.append(this.layer);
    this.timer = setInterval(() => this.follow(), 500);
    this.reportTimer = setInterval(() => {
      this.sendReport().catch(() => {});
    }, REPORT_INTERVAL_MS);
  }

  /** Frames decoded so far by one shown stream: its inbound-rtp stats (or, without WebRTC, the element's). */
  async framesOf({ video, track }) {
    if (this.link && this.link !== 'local' && track) {
      let frames = 0;
      const report = await this.link.receiver.getStats(track).catch(() => null);
      report?.forEach((stat) => {
        if (stat.type === 'inbound-rtp' && stat.kind === 'video') frames += stat.framesDecoded ?? 0;
      });
      return frames;
    }
    return video.getVideoPlaybackQuality?.().totalVideoFrames ?? 0;
  }

  async sendReport() {
    // Off once the page really receives no camera (the setting applied and every camera gone), so a
    // report saying off counts every camera frame the page will have decoded.
    const coming = [...this.shown.keys(), ...this.opening];
    const incomingVideo = this.incoming() || coming.some((key) => key !== 'screen');
    const totals = { ...this.ended };
    for (const [key, entry] of this.shown) {
      totals[key === 'screen' ? 'screen' : 'camera'] += await this.framesOf(entry);
    }
    const action = {
      type: 'video-received',
      cameraFrames: totals.camera,
      screenFrames: totals.screen,
      incomingVideo,
    };
    const json = JSON.stringify(action);
    if (json === this.lastReport) return;
    this.lastReport = json;
    this.report(action);
  }

  /** What should be on screen now: the cameras of the present people and, when due, the screen share. */
  wanted() {
    if (!this.live()) return [];
    const keys = [];
    if (this.load.cameras && this.incoming()) {
      for (const person of this.present().slice(0, MAX_CAMERAS)) keys.push(person.id);
    }
    const sinceStart = Date.now() - (this.startedAt ?? Date.now());
    const screenOn =
      this.load.screenShare === 'on' ||
      (this.load.screenShare === 'half' && Math.floor(sinceStart / SCREEN_SHARE_PERIOD_MS) % 2 === 0);
    if (screenOn) keys.push('screen');
    return keys;
  }

  async follow() {
    if (this.busy) return;
    this.busy = true;
    try {
      if (this.live() && this.startedAt === null) this.startedAt = Date.now();
      if (!this.live()) this.startedAt = null;
      const wanted = this.wanted();
      if (wanted.length > 0 && !this.link) await this.connect();
      for (const [key, entry] of this.shown) {
        if (!wanted.includes(key)) await this.hide(key, entry);
      }
      for (const key of wanted) {
        if (this.shown.has(key)) continue;
        this.opening.add(key);
        try {
          await this.show(key);
        } finally {
          this.opening.delete(key);
        }
      }
    } catch (error) {
      console.warn('simulator: video load', error);
    } finally {
      this.busy = false;
    }
  }

  async connect() {
    const link = new LoopbackLink();
    // Without a network interface ICE can't connect; the page then shows the canvases' own streams.
    this.link = (await link.connect()) ? link : 'local';
  }

  async show(key) {
    const cameraIndex = this.present().findIndex((person) => person.id === key);
    const size = key === 'screen' ? SCREEN : cameraIndex === 0 ? LARGE : GRID;
    const label = key === 'screen' ? 'screen' : (this.present()[cameraIndex]?.name ?? key);
    const kind = key === 'screen' ? 'screen' : 'camera';
    const hue = (this.shown.size * 67) % 360;
    let source;
    let remote;
    if (this.link === 'local') {
      source = new CanvasSource(kind, size, label, hue);
      remote = source.stream;
    } else if (encodedClipsSupported()) {
      source = new CanvasSource('stand-in', { ...STAND_IN, fps: size.fps }, label, hue);
      const spec = { kind, width: size.width, height: size.height, fps: size.fps };
      remote = await this.link.send(source.stream, undefined, (sender, transceiver) =>
        sendEncodedClip(sender, transceiver, spec),
      );
    } else {
      source = new CanvasSource(kind, size, label, hue);
      remote = await this.link.send(source.stream);
    }
    const video = document.createElement('video');
    video.muted = true;
    video.playsInline = true;
    video.autoplay = true;
    video.setAttribute('data-sim-video', key === 'screen' ? 'screen' : 'camera');
    video.style.cssText =
      key === 'screen'
        ? 'width:960px;height:540px;background:#000'
        : 'width:320px;height:180px;background:#000';
    video.srcObject = remote;
    this.layer.append(video);
    await video.play().catch(() => {});
    this.shown.set(key, { source, video, track: remote.getVideoTracks()[0] ?? null });
  }

  async hide(key, entry) {
    const { source, video } = entry;
    this.ended[key === 'screen' ? 'screen' : 'camera'] += await this.framesOf(entry);
    this.shown.delete(key);
    video.srcObject = null;
    video.remove();
    if (this.link && this.link !== 'local') await this.link.unsend(source.stream);
    source.stop();
  }
}
