import { sleep } from '../../shared/infra/async.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { PageMedia } from './page-media.js';

/** Switches the bot's camera through the platform's own toggle; true when it is now as asked. */
export interface CameraToggle {
  setCamera(on: boolean): Promise<boolean>;
}

/** How long a page may take to pick up the camera track after the camera is turned on. */
const TRACK_TAKEN_LIMIT_MS = 3000;
/**
 * Presses of the camera toggle before giving up: a toolbar that hid again before the click (Meet
 * hides it when the pointer rests, sooner than a loaded machine clicks) misses one press, not the image.
 */
const CAMERA_PRESSES = 4;
const CAMERA_RETRY_MS = 1000;

/**
 * The bot's picture: an image drawn on the page's synthetic camera (media-page-script.ts),
 * with the camera turned on through the platform's toggle while it is shown and off after.
 * Requests run one at a time in the order they came; one before admission waits for it.
 */
export class ScreenShare {
  private chain: Promise<void> = Promise.resolve();
  private inCall = false;
  private pending: Uint8Array | null = null;
  private showing = false;
  /** From an asked-for image until the stop: the camera is meant to be on, even before it is. */
  private wanted = false;

  constructor(
    private readonly media: PageMedia,
    private readonly toggle: CameraToggle,
    private readonly log: Logger,
  ) {}

  /** Whether the camera is on on purpose (the session leaves the camera toggle alone meanwhile). */
  get busy(): boolean {
    return this.wanted || this.showing || this.pending !== null;
  }

  admitted(): void {
    this.inCall = true;
    const image = this.pending;
    this.pending = null;
    if (image) this.show(image);
  }

  show(image: Uint8Array): void {
    this.wanted = true;
    if (!this.inCall) {
      this.pending = image;
      return;
    }
    this.enqueue(async () => {
      const size = await this.media.showImage(image);
      if (!this.showing) {
        const before = await this.media.cameraTakenAt().catch(() => null);
        if (!(await this.cameraOn())) {
          this.wanted = false;
          throw new Error(`could not turn the camera on in ${CAMERA_PRESSES} tries`);
        }
        this.showing = true;
        const deadline = Date.now() + TRACK_TAKEN_LIMIT_MS;
        while (Date.now() < deadline && (await this.media.cameraTakenAt().catch(() => null)) === before) {
          await sleep(50);
        }
      }
      this.log.info(size, 'showing an image as the camera');
    });
  }

  stop(): void {
    this.pending = null;
    this.wanted = false;
    this.enqueue(async () => {
      if (this.showing) {
        this.showing = false;
        if (!(await this.toggle.setCamera(false))) this.log.warn('could not turn the camera off');
      }
      await this.media.hideImage();
      this.log.info('stopped showing the image');
    });
  }

  /** Waits for what was asked so far (tests, leaving). */
  settled(): Promise<void> {
    return this.chain;
  }

  private async cameraOn(): Promise<boolean> {
    for (let press = 1; press <= CAMERA_PRESSES; press++) {
      if (await this.toggle.setCamera(true)) return true;
      if (!this.wanted) return false;
      this.log.info({ press }, 'the camera toggle did not answer; pressing it again');
      if (press < CAMERA_PRESSES) await sleep(CAMERA_RETRY_MS);
    }
    return false;
  }

  private enqueue(work: () => Promise<void>): void {
    this.chain = this.chain
      .then(work)
      .catch((error: unknown) => this.log.warn({ err: error }, 'showing or hiding the image failed'));
  }
}
