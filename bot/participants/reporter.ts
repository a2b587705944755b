import type { Logger } from '../../shared/infra/logger.js';
import type { ParticipantChange } from '../outbox.js';
import type { SignalledSpeakingChange } from '../speakers/attribution.js';
import type { PeopleSeen } from '../platforms/driver.js';
import { Roster } from './roster.js';
import { SpeechActivity } from './speech-activity.js';

/** A name missing this long from the page (and for two looks) has left: tiles and lists re-render. */
export const LEAVE_HOLD_MS = 3000;
/**
 * A speaking indicator must be on this long for a start and off this long for a stop: shorter gaps
 * between words merge into one stretch, shorter blips report nothing.
 */
export const SPEECH_HOLD_MS = 1500;
/** Names followed at once per bot; a bigger crowd's further joins are not reported (logged once). */
export const MAX_TRACKED_PARTICIPANTS = 1000;

export interface ParticipantReporterDeps {
  publish: (change: ParticipantChange) => Promise<void> | void;
  /** A wall instant (epoch ms) on the transcript's time line (seconds). */
  transcriptSeconds: (wall: number) => number;
  /** The name the bot joined with: never reported as a participant. */
  botName: () => string;
  log: Logger;
}

type Change = { type: ParticipantChange['type']; name: string; at: number };

/**
 * The bot's participant events: who joined and left (from the people each look already reads) and
 * who started and stopped speaking (from the speaking indicators the attribution already gets),
 * each a change sent once, in the order it happened.
 */
export class ParticipantReporter {
  private readonly roster: Roster;
  private readonly speech: SpeechActivity;
  private warnedFull = false;

  constructor(private readonly deps: ParticipantReporterDeps) {
    this.roster = new Roster(
      { leaveHoldMs: LEAVE_HOLD_MS, maxTracked: MAX_TRACKED_PARTICIPANTS },
      deps.botName,
    );
    this.speech = new SpeechActivity(
      { holdMs: SPEECH_HOLD_MS, maxTracked: MAX_TRACKED_PARTICIPANTS },
      deps.botName,
    );
  }

  /** A speaking indicator changed (wall time `at`). */
  speaking(change: SignalledSpeakingChange, at: number): void {
    this.send(this.speech.record(change, at));
  }

  /** One look in the call: who the page shows now (null: it doesn't say). */
  look(seen: PeopleSeen | null, now: number): void {
    const changes: Change[] = [...this.speech.settle(now)];
    for (const change of this.roster.look(seen, now)) {
      if (change.type === 'participant.left') {
        const stopped = this.speech.stop(change.name, change.at);
        if (stopped) changes.push(stopped);
      }
      changes.push(change);
    }
    if (this.roster.full && !this.warnedFull) {
      this.warnedFull = true;
      this.deps.log.warn(
        { max: MAX_TRACKED_PARTICIPANTS },
        'too many participants to follow; not reporting more joins',
      );
    }
    this.send(changes);
  }

  /** The bot leaves the call: the stretches of speech still going on end now. */
  finish(now: number): void {
    this.send([...this.speech.settle(now), ...this.speech.stopAll(now)]);
  }

  private send(changes: readonly Change[]): void {
    for (const change of changes) {
      void this.deps.publish({
        type: change.type,
        name: change.name,
        at: new Date(change.at).toISOString(),
        seconds: this.deps.transcriptSeconds(change.at),
      });
    }
  }
}
