import { WEBRTC_SOURCE_PREFIX } from '../speakers/signals.js';
import type { SignalledSpeakingChange } from '../speakers/attribution.js';
import { participantName } from './roster.js';

export interface SpeechChange {
  type: 'participant.speech_started' | 'participant.speech_stopped';
  name: string;
  /** Wall clock (epoch ms): when the indicator first showed the speech, or when it last went off. */
  at: number;
}

export interface SpeechActivityOptions {
  /**
   * A speaking indicator must stay on this long before a start is reported (a blip is not speech),
   * and off this long before a stop is: a flickering indicator between words makes one stretch.
   */
  holdMs: number;
  /** At most this many names are followed at once. */
  maxTracked: number;
}

interface Speaker {
  /** Signals showing the person speaking now. */
  on: Set<string>;
  /** When the indicators went on (the stretch's start), null when none is on and none reported. */
  since: number | null;
  /** When the last indicator went off (null: one is on). */
  quietSince: number | null;
  reported: boolean;
}

/**
 * Who is speaking, from every page signal the bot already reads (not the WebRTC sources, which are
 * no people), debounced: `record` takes each indicator change, `settle` (on every look) reports the
 * starts that held and the stops that held. Memory: one small entry per name that ever spoke.
 */
export class SpeechActivity {
  private readonly speakers = new Map<string, Speaker>();

  constructor(
    private readonly options: SpeechActivityOptions,
    private readonly botName: () => string,
  ) {}

  /**
   * One indicator change at wall time `at` (the page's clock turned into epoch ms). Returns what a
   * stretch that ended unsettled (no look in between) still has to report, if anything.
   */
  record(change: SignalledSpeakingChange, at: number): SpeechChange[] {
    if (change.signal === 'webrtc' || change.name.startsWith(WEBRTC_SOURCE_PREFIX)) return [];
    const name = participantName(change.name);
    if (name === null || name.toLowerCase() === participantName(this.botName())?.toLowerCase()) return [];
    let speaker = this.speakers.get(name);
    if (!speaker) {
      if (!change.speaking || this.speakers.size >= this.options.maxTracked) return [];
      speaker = { on: new Set(), since: null, quietSince: null, reported: false };
      this.speakers.set(name, speaker);
    }
    if (!change.speaking) {
      if (speaker.on.delete(change.signal) && speaker.on.size === 0) speaker.quietSince = at;
      return [];
    }
    let ended: SpeechChange[] = [];
    // Quiet for the hold time already: the earlier stretch is over, this one is new.
    if (
      speaker.on.size === 0 &&
      speaker.quietSince !== null &&
      at - speaker.quietSince >= this.options.holdMs
    )
      ended = this.close(name, speaker);
    speaker.since ??= at;
    speaker.quietSince = null;
    speaker.on.add(change.signal);
    return ended;
  }

  /** The starts and stops that have held until `now`, oldest first. */
  settle(now: number): SpeechChange[] {
    const changes: SpeechChange[] = [];
    for (const [name, speaker] of this.speakers) {
      if (speaker.since === null) continue;
      if (!speaker.reported && (speaker.quietSince ?? now) - speaker.since >= this.options.holdMs) {
        speaker.reported = true;
        changes.push({ type: 'participant.speech_started', name, at: speaker.since });
      }
      if (speaker.quietSince !== null && now - speaker.quietSince >= this.options.holdMs)
        changes.push(...this.close(name, speaker));
    }
    return changes.sort((a, b) => a.at - b.at);
  }

  /** Ends a stretch that is over: its start if it held and was not reported yet, then its stop. */
  private close(name: string, speaker: Speaker): SpeechChange[] {
    const changes: SpeechChange[] = [];
    const since = speaker.since;
    const end = speaker.quietSince;
    if (since !== null && end !== null && !speaker.reported && end - since >= this.options.holdMs) {
      changes.push({ type: 'participant.speech_started', name, at: since });
      speaker.reported = true;
    }
    if (speaker.reported && end !== null) changes.push({ type: 'participant.speech_stopped', name, at: end });
    speaker.reported = false;
    speaker.since = null;
    speaker.quietSince = null;
    return changes;
  }

  /** Ends a stretch now whatever its indicators say (the person left, the bot leaves). */
  stop(name: string, at: number): SpeechChange | null {
    const speaker = this.speakers.get(name);
    if (!speaker) return null;
    const wasReported = speaker.reported;
    const end = speaker.quietSince ?? at;
    speaker.on.clear();
    speaker.since = null;
    speaker.quietSince = null;
    speaker.reported = false;
    return wasReported ? { type: 'participant.speech_stopped', name, at: end } : null;
  }

  /** Every stretch still reported as going on, ended at `at`. */
  stopAll(at: number): SpeechChange[] {
    const changes: SpeechChange[] = [];
    for (const name of this.speakers.keys()) {
      const change = this.stop(name, at);
      if (change) changes.push(change);
    }
    return changes;
  }
}
