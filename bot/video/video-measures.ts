import type { Logger } from '../../shared/infra/logger.js';
import type { PlatformDriver } from '../platforms/driver.js';
import { gaveWay } from '../platforms/step-stopped.js';
import type { VideoMeasure } from './measures.js';

/** How often the bot logs the video its page decoded (a check on the measures on real pages). */
export const DECODED_LOG_INTERVAL_MS = 60_000;
/** Tries at the incoming-video setting in the call before the bot gives up on it (each up to half a minute on a busy page). */
const INCOMING_VIDEO_TRIES = 5;

/**
 * The in-call side of the bot's video measures (the page script is installed with the page:
 * bot/meeting-page.ts). Nothing here ever fails the bot: a setting it can't reach costs CPU, not the
 * transcript, so it is logged and left.
 */
export class VideoMeasures {
  private tries = 0;
  private trying = false;
  private incomingVideoOff = false;
  private lastFrames: number | null = null;
  private lastLogAt = 0;

  constructor(
    readonly measures: readonly VideoMeasure[],
    private readonly framesDecoded: () => Promise<number | null>,
    private readonly log: Logger,
  ) {}

  /** Whether the in-call work is still to do (the setting not reached yet, tries left). */
  get pending(): boolean {
    return (
      this.measures.includes('incoming_video_off') &&
      !this.incomingVideoOff &&
      this.tries < INCOMING_VIDEO_TRIES
    );
  }

  /**
   * One try at turning others' cameras off through the platform's own setting; `abandoned` is
   * aborted when the call is over before the try is done, or when other work waits for the page
   * (bot/session/in-call-step.ts): it then stops between its steps.
   */
  async turnOffIncomingVideo(driver: PlatformDriver, abandoned: AbortSignal): Promise<void> {
    // One try at a time: one the session stopped waiting for (bot/session/in-call-step.ts) may still be busy.
    if (!this.pending || !driver.turnOffIncomingVideo || this.trying) return;
    this.tries += 1;
    this.trying = true;
    this.log.debug({ try: this.tries }, 'turning incoming video off in the meeting settings');
    try {
      this.incomingVideoOff = await driver.turnOffIncomingVideo(abandoned);
    } catch (error) {
      this.log.debug({ err: error }, 'turning incoming video off was interrupted');
    } finally {
      this.trying = false;
    }
    if (!this.incomingVideoOff && gaveWay(abandoned)) {
      // Stopped for a switch or a chat message: not a try the page refused, so it is not counted.
      this.tries -= 1;
      this.log.debug({ try: this.tries + 1 }, 'turning incoming video off gave way to other work');
      return;
    }
    if (abandoned.aborted) {
      this.log.debug({ try: this.tries }, 'turning incoming video off abandoned: the call is over');
      return;
    }
    if (this.incomingVideoOff) this.log.info('incoming video turned off in the meeting settings');
    else if (!this.pending)
      this.log.warn(
        { tries: this.tries },
        "could not turn incoming video off in the meeting settings; the page keeps receiving others' cameras",
      );
  }

  /** Logs the frames decoded since the last log, at most once per DECODED_LOG_INTERVAL_MS. */
  async logDecoded(now = Date.now()): Promise<void> {
    if (now - this.lastLogAt < DECODED_LOG_INTERVAL_MS) return;
    this.lastLogAt = now;
    const frames = await this.framesDecoded().catch(() => null);
    if (frames === null) return;
    const since = this.lastFrames === null ? frames : frames - this.lastFrames;
    this.lastFrames = frames;
    this.log.info(
      { videoFramesDecoded: since, measures: this.measures, incomingVideoOff: this.incomingVideoOff },
      'remote video decoded by the page since the last look',
    );
  }
}
