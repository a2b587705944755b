// The meeting seeing the bot: while the bot's camera is on in the call, the page takes the camera
// track with its own getUserMedia (as the real pages do when the camera is turned on), plays it in
// a video element and reports the average colour of a frame each second, so a test can tell what
// picture the remote participants see. Turning the camera off (or leaving) says so.

const SAMPLE_WIDTH = 32;
const SAMPLE_HEIGHT = 18;

export class PageCamera {
  /** live(): whether the bot's camera is on in the call now; report(action): the session's ordered reports. */
  constructor({ live, report }) {
    this.live = live;
    this.report = report;
    this.stream = null;
    this.starting = null;
    this.video = null;
    this.showing = false;
    this.canvas = document.createElement('canvas');
    this.canvas.width = SAMPLE_WIDTH;
    this.canvas.height = SAMPLE_HEIGHT;
    this.timer = setInterval(() => this.follow(), 1000);
  }

  follow() {
    const live = this.live();
    if (live && !this.stream && !this.starting) {
      this.starting = this.open()
        .catch((error) => console.warn('simulator: no camera', error))
        .finally(() => {
          this.starting = null;
        });
    }
    if (live && this.stream) this.sample();
    if (!live && this.stream) {
      // Like the platforms, turning the camera off releases it; the next "on" asks again.
      for (const track of this.stream.getTracks()) track.stop();
      this.stream = null;
      if (this.video) this.video.srcObject = null;
      if (this.showing) this.report({ type: 'camera-closed', at: new Date().toISOString() });
      this.showing = false;
    }
  }

  async open() {
    this.stream = await navigator.mediaDevices.getUserMedia({ video: true });
    if (!this.video) {
      this.video = document.createElement('video');
      this.video.muted = true;
      this.video.playsInline = true;
      this.video.setAttribute('data-sim', 'bot-camera');
      // The self view sits in a corner the side panels (chat, people) don't use, and never takes a
      // click meant for what is under it.
      this.video.style.cssText =
        'position:fixed;left:8px;bottom:80px;width:160px;height:90px;background:#000;pointer-events:none';
      document.body.append(this.video);
    }
    this.video.srcObject = this.stream;
    await this.video.play().catch(() => {});
  }

  sample() {
    if (!this.video || this.video.readyState < 2) return;
    const g = this.canvas.getContext('2d', { willReadFrequently: true });
    g.drawImage(this.video, 0, 0, SAMPLE_WIDTH, SAMPLE_HEIGHT);
    const { data } = g.getImageData(0, 0, SAMPLE_WIDTH, SAMPLE_HEIGHT);
    const sum = [0, 0, 0];
    for (let i = 0; i < data.length; i += 4) {
      sum[0] += data[i];
      sum[1] += data[i + 1];
      sum[2] += data[i + 2];
    }
    const pixels = data.length / 4;
    this.showing = true;
    this.report({
      type: 'camera-frame',
      color: sum.map((value) => Math.round(value / pixels)),
      width: this.video.videoWidth,
      height: this.video.videoHeight,
      at: new Date().toISOString(),
    });
  }
}
