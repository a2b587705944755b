import type { CameraToggle } from './screen.js';
import type { MicrophoneToggle } from './speaker.js';

/**
 * One user at a time of the call page's mouse and keyboard: the microphone and camera toggles, the
 * session's looks (Meet's wakes the toolbar with a mouse move), the chat panel and the video
 * settings. Otherwise they interleave:
 * - a keep-muted look (ensureMuted) that began before an image was asked for could press "Turn off
 *   camera" just after the image turned it on, leaving the image unseen;
 * - a look's toolbar move, or the chat panel's clicks and typing, landing between a toggle press's
 *   mouse down and up loses the press: the camera stays off while the bot believes it is on.
 */
export class PageInputLock {
  private tail: Promise<unknown> = Promise.resolve();
  private queued = 0;

  /** How many runs wait for the one that holds the lock (a long holder gives way to them). */
  get waiting(): number {
    return this.queued;
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    this.queued += 1;
    const result = this.tail.then(() => {
      this.queued -= 1;
      return work();
    });
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** The driver's toggles, each switch taken under the lock. */
export function lockedToggles(
  toggles: MicrophoneToggle & CameraToggle,
  lock: PageInputLock,
): MicrophoneToggle & CameraToggle {
  return {
    setMicrophone: (on) => lock.run(() => toggles.setMicrophone(on)),
    setCamera: (on) => lock.run(() => toggles.setCamera(on)),
  };
}
