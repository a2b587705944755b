import type { CameraToggle } from './screen.js';
import type { MicrophoneToggle } from './speaker.js';

/**
 * One thing at a time on the page's microphone and camera toggles. The session's look that keeps
 * them off around admission (ensureMuted) and the actions' switches (speaking, showing an image)
 * otherwise interleave: a look that began before an image was asked for could press "Turn off
 * camera" just after the image turned it on, leaving the image unseen.
 */
export class ToggleLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** The driver's toggles, each switch taken under the lock. */
export function lockedToggles(
  toggles: MicrophoneToggle & CameraToggle,
  lock: ToggleLock,
): MicrophoneToggle & CameraToggle {
  return {
    setMicrophone: (on) => lock.run(() => toggles.setMicrophone(on)),
    setCamera: (on) => lock.run(() => toggles.setCamera(on)),
  };
}
