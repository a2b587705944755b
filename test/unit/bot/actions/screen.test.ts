import { describe, expect, it } from 'vitest';
import type { PageMedia } from '../../../../bot/actions/page-media.js';
import { ScreenShare } from '../../../../bot/actions/screen.js';
import { lockedToggles, PageInputLock } from '../../../../bot/actions/page-input-lock.js';
import { createLogger } from '../../../../shared/infra/logger.js';

const log = createLogger('screen-test', 'silent');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A page whose camera is taken as soon as it is turned on; drawing an image takes a while. */
class FakePage implements PageMedia {
  camera = false;
  taken: number | null = null;
  readonly presses: string[] = [];
  async playPcm() {
    return { startsInMs: 0, durationMs: 0 };
  }
  async playEncoded() {
    return { startsInMs: 0, durationMs: 0 };
  }
  async remainingMs() {
    return 0;
  }
  async takenAt() {
    return null;
  }
  async stop() {}
  async showImage() {
    await sleep(30);
    return { width: 640, height: 360 };
  }
  async hideImage() {}
  async cameraTakenAt() {
    return this.taken;
  }
  /** The platform's toggle: each press takes a moment, as a click in Chromium does. */
  async setCamera(on: boolean) {
    await sleep(20);
    this.camera = on;
    if (on) this.taken = Date.now();
    this.presses.push(on ? 'camera on' : 'camera off');
    return true;
  }
  async setMicrophone() {
    return true;
  }
  /** The session's look around admission: turns the camera off if it is on. */
  async ensureMuted() {
    await sleep(40);
    if (this.camera) await this.setCamera(false);
  }
}

describe('ScreenShare', () => {
  it('presses the camera toggle again when a press missed (a toolbar that hid first), then shows the image', async () => {
    const page = new FakePage();
    let misses = 2;
    const toggle = {
      setCamera: async (on: boolean) => (on && misses-- > 0 ? false : page.setCamera(on)),
    };
    const screen = new ScreenShare(page, toggle, log);
    screen.admitted();
    screen.show(new Uint8Array([1]));
    await screen.settled();
    expect(page.camera).toBe(true);
    expect(page.presses).toEqual(['camera on']);
    expect(screen.busy).toBe(true);
  });

  it('gives up on a toggle that never answers, and is no longer busy', async () => {
    const page = new FakePage();
    let presses = 0;
    const screen = new ScreenShare(
      page,
      {
        setCamera: async () => {
          presses++;
          return false;
        },
      },
      log,
    );
    screen.admitted();
    screen.show(new Uint8Array([1]));
    await screen.settled();
    expect(presses).toBe(4);
    expect(page.camera).toBe(false);
    expect(screen.busy).toBe(false);
  });

  it('counts as busy from the moment an image is asked for until the camera is off again', async () => {
    const page = new FakePage();
    const screen = new ScreenShare(page, page, log);
    screen.admitted();
    expect(screen.busy).toBe(false);
    screen.show(new Uint8Array([1]));
    expect(screen.busy).toBe(true);
    await screen.settled();
    expect(page.camera).toBe(true);
    screen.stop();
    await screen.settled();
    expect(screen.busy).toBe(false);
    expect(page.presses).toEqual(['camera on', 'camera off']);
  });

  it("is not undone by the session's keep-muted look that started just before it (the toggles' lock)", async () => {
    const page = new FakePage();
    // The camera is already on (Meet turns it back on at admission), as the look starts.
    page.camera = true;
    const lock = new PageInputLock();
    const screen = new ScreenShare(page, lockedToggles(page, lock), log);
    screen.admitted();
    // The session's look, as bot/session.ts runs it: deciding under the lock.
    const look = lock.run(async () => {
      if (!screen.busy) await page.ensureMuted();
    });
    await sleep(5);
    screen.show(new Uint8Array([1]));
    await look;
    await screen.settled();
    // Another look after the request leaves the camera alone.
    await lock.run(async () => {
      if (!screen.busy) await page.ensureMuted();
    });
    expect(page.camera).toBe(true);
    expect(page.presses).toEqual(['camera off', 'camera on']);
  });

  it('an image asked for while a long step holds the lock is counted as waiting (so the step can give way)', async () => {
    const page = new FakePage();
    const lock = new PageInputLock();
    const screen = new ScreenShare(page, lockedToggles(page, lock), log);
    screen.admitted();
    let release = () => {};
    const holder = lock.run(() => new Promise<void>((resolve) => (release = resolve)));
    await sleep(5);
    expect(lock.waiting).toBe(0); // the holder itself is not waiting
    screen.show(new Uint8Array([1]));
    await sleep(60); // the image drawn (30 ms), then the camera switch asked for
    expect(lock.waiting).toBe(1);
    expect(page.presses).toEqual([]);
    release();
    await holder;
    await screen.settled();
    expect(lock.waiting).toBe(0);
    expect(page.presses).toEqual(['camera on']);
  });

  it('without the lock the same timing leaves the camera off (what the lock is for)', async () => {
    const page = new FakePage();
    page.camera = true;
    const screen = new ScreenShare(page, page, log);
    screen.admitted();
    const look = (async () => {
      if (!screen.busy) {
        // The look has decided; the image comes while it is on its way to the button.
        await sleep(5);
        await page.ensureMuted();
      }
    })();
    screen.show(new Uint8Array([1]));
    await Promise.all([look, screen.settled()]);
    expect(page.camera).toBe(false);
  });
});
