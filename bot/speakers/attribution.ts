import { SIGNAL_WEIGHT, SPEAKING_SIGNALS, type SpeakingSignal } from './signals.js';
import { SourceNames } from './source-names.js';
import {
  type NamedInterval,
  SpeakerTimeline,
  type SpeakerTimelineOptions,
  type SpeakingChange,
  strongest,
} from './timeline.js';

export interface SignalledSpeakingChange extends SpeakingChange {
  signal: SpeakingSignal;
}

export interface SpeakerAttributionOptions extends SpeakerTimelineOptions {
  /** Only these signals count (all of them by default): the benchmark scores each one alone. */
  signals?: readonly SpeakingSignal[];
}

/** A stretch of a source's talk is named only when the page signals agree this much on one person. */
const CLEAR_VERDICT_SHARE = 0.75;

interface Vote {
  weight: number;
  overlap: number;
}

/**
 * Who said a segment, from every speaking signal the page gives: each signal names the person whose
 * speaking overlaps the segment most (its own timeline), and the name with the most weight wins,
 * more overlap breaking a tie. A signal that went missing (renamed classes, a closed panel, a
 * page that stopped animating something) simply doesn't vote, so one lost signal costs nothing
 * while another still shows speech.
 */
export class SpeakerAttribution {
  private readonly timelines = new Map<SpeakingSignal, SpeakerTimeline>();
  private readonly sources = new SourceNames();
  private readonly enabled: ReadonlySet<SpeakingSignal>;
  private latest = 0;

  constructor(private readonly options: SpeakerAttributionOptions = {}) {
    this.enabled = new Set(options.signals ?? SPEAKING_SIGNALS);
  }

  record(change: SignalledSpeakingChange): void {
    if (!this.enabled.has(change.signal)) return;
    this.latest = Math.max(this.latest, change.at);
    const closed = this.timeline(change.signal).record(change);
    if (change.signal === 'webrtc' && closed) {
      this.sources.learn(closed.name, closed.start, this.pageVerdict(closed.start, closed.end, closed.end));
      this.sources.forgetBefore(this.latest - (this.options.retentionSeconds ?? 600));
    }
  }

  /** The winning name for [start, end], or null when no signal saw anyone speak then. */
  attribute(start: number, end: number, now = Math.max(this.latest, end)): string | null {
    const votes = new Map<string, Vote>();
    const vote = (signal: SpeakingSignal, overlaps: Map<string, number>) => {
      const best = strongest(overlaps);
      if (best === null) return;
      const current = votes.get(best.name) ?? { weight: 0, overlap: 0 };
      current.weight += SIGNAL_WEIGHT[signal];
      current.overlap += best.overlap;
      votes.set(best.name, current);
    };
    for (const [signal, timeline] of this.timelines) {
      if (signal !== 'webrtc') vote(signal, timeline.overlaps(start, end, now));
    }
    const webrtc = this.timelines.get('webrtc');
    if (webrtc)
      vote(
        'webrtc',
        webrtc.overlaps(start, end, now, (stretch) => this.personIn(stretch, now)),
      );
    let winner: string | null = null;
    let best: Vote = { weight: 0, overlap: 0 };
    for (const [name, candidate] of votes) {
      if (
        candidate.weight > best.weight ||
        (candidate.weight === best.weight && candidate.overlap > best.overlap)
      ) {
        winner = name;
        best = candidate;
      }
    }
    return winner;
  }

  private personIn(stretch: NamedInterval, now: number): string | null {
    const named = stretch.open ? undefined : this.sources.stretchName(stretch.name, stretch.start);
    const verdict = named !== undefined ? named : this.pageVerdict(stretch.start, stretch.end, now);
    return verdict ?? this.sources.personOf(stretch.name);
  }

  /** The person the page signals clearly saw talking over [start, end], or null. */
  private pageVerdict(start: number, end: number, now: number): string | null {
    const evidence = new Map<string, number>();
    let total = 0;
    for (const [signal, timeline] of this.timelines) {
      if (signal === 'webrtc') continue;
      for (const [name, overlap] of timeline.overlaps(start, end, now)) {
        const weighted = overlap * SIGNAL_WEIGHT[signal];
        evidence.set(name, (evidence.get(name) ?? 0) + weighted);
        total += weighted;
      }
    }
    const best = strongest(evidence);
    return best !== null && best.overlap >= CLEAR_VERDICT_SHARE * total ? best.name : null;
  }

  private timeline(signal: SpeakingSignal): SpeakerTimeline {
    let timeline = this.timelines.get(signal);
    if (!timeline) {
      timeline = new SpeakerTimeline(this.options);
      this.timelines.set(signal, timeline);
    }
    return timeline;
  }
}
