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
// Caveat for measurements: the encoding happens in the same page (a real meeting's senders are
// elsewhere), so the page pays for encoding and decoding both.

import { LoopbackLink } from './loopback.js';

/** Real clients' receive sizes: one large tile, the rest of the grid at 360p (docs/benchmarks.md). */
const LARGE = { width: 1280, height: 720, fps: 30 };
const GRID = { width: 640, height: 360, fps: 15 };
const SCREEN = { width: 1920, height: 1080, fps: 5 };
const MAX_CAMERAS = 9;
/** `half`: the screen share is on for this long, then off for as long, from the start of the call. */
const SCREEN_SHARE_PERIOD_MS = 30_000;
const REPORT_INTERVAL_MS = 2000;

/** A moving picture on a canvas: a gradient, shapes in motion and a clock, so frames really differ. */
class CanvasSource {
  constructor({ width, height, fps }, label, hue) {
    this.canvas = document.createElement('canvas');
    this.canvas.width = width;
    this.canvas.height = height;
    this.label = label;
    this.hue = hue;
    this.frame = 0;
    this.g = this.canvas.getContext('2d');
    this.draw();
    this.stream = this.canvas.captureStream(fps);
    this.timer = setInterval(() => this.draw(), 1000 / fps);
  }

  draw() {
    const { g } = this;
    const { width, height } = this.canvas;
    const t = this.frame++;
    const gradient = g.createLinearGradient(0, 0, width, height);
    gradient.addColorStop(0, `hsl(${(this.hue + t) % 360} 50% 35%)`);
    gradient.addColorStop(1, `hsl(${(this.hue + t + 120) % 360} 50% 20%)`);
    g.fillStyle = gradient;
    g.fillRect(0, 0, width, height);
    // A "face" that sways and a few moving blobs: motion across the frame, as a camera has.
    for (let i = 0; i < 6; i += 1) {
      const x = width * (0.5 + 0.4 * Math.sin((t + i * 40) / (17 + i)));
      const y = height * (0.5 + 0.4 * Math.cos((t + i * 25) / (23 + i)));
      g.fillStyle = `hsl(${(this.hue + i * 50) % 360} 70% ${40 + i * 5}%)`;
      g.beginPath();
      g.arc(x, y, height * (0.08 + i * 0.02), 0, Math.PI * 2);
      g.fill();
    }
    g.fillStyle = '#fff';
    g.font = `${Math.round(height / 12)}px sans-serif`;
    g.fillText(`${this.label} ${t}`, width * 0.05, height * 0.9);
  }

  stop() {
    clearInterval(this.timer);
    for (const track of this.stream.getTracks()) track.stop();
  }
}

/** A shared screen: pages of text lines, a new page every few seconds and a moving pointer. */
class ScreenSource extends CanvasSource {
  draw() {
    const { g } = this;
    const { width, height } = this.canvas;
    const t = this.frame++;
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
    this.busy = false;
    this.startedAt = null;
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
    const incomingVideo = this.incoming() || [...this.shown.keys()].some((key) => key !== 'screen');
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
        if (!this.shown.has(key)) await this.show(key);
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
    const Source = key === 'screen' ? ScreenSource : CanvasSource;
    const source = new Source(size, label, (this.shown.size * 67) % 360);
    const remote = this.link === 'local' ? source.stream : await this.link.send(source.stream);
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
