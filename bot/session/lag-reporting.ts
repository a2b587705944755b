import type { Logger } from '../../shared/infra/logger.js';
import { type CaptureLossReport, CaptureLossWatch } from '../audio/capture-loss.js';
import type { CaptureTimeline } from '../audio/capture-timeline.js';
import type { TranscriptionEngine } from '../engines/engine.js';
import type { EventSink } from '../outbox.js';
import { LagMonitor, type LagThresholds, lagParts } from './transcription-lag.js';

/** Seconds to a tenth, as they are reported and logged. */
function round(seconds: number): number {
  return Math.round(seconds * 10) / 10;
}

export interface LagReportingDeps {
  /** When falling behind is reported (DEFAULT_LAG_THRESHOLDS otherwise). */
  thresholds?: LagThresholds | undefined;
  outbox: Pick<EventSink, 'health'>;
  /** The page's capture time line, once the page is open. */
  timeline(): CaptureTimeline | undefined;
  engine(): TranscriptionEngine | null;
  log: Logger;
}

/**
 * How far the transcription is behind the meeting, and the audio lost on the way: reported as
 * health messages (lagging, caught up, audio dropped by the engine or by the page's capture) and said
 * in the log.
 */
export class LagReporting {
  private readonly lag: LagMonitor;
  private readonly captureLoss = new CaptureLossWatch();

  constructor(private readonly deps: LagReportingDeps) {
    this.lag = new LagMonitor(deps.thresholds);
  }

  /** How far behind the transcription is (0 before audio), and whether that is reported. */
  state(): { lagSeconds: number; lagging: boolean } {
    return { lagSeconds: round(this.lag.lagSeconds), lagging: this.lag.isLagging };
  }

  /** One look: the engine's drops settled, the capture's losses and the lag reported as they change. */
  check(): void {
    const { engine, outbox, log } = this.deps;
    engine()?.settleDroppedAudio?.();
    this.checkCaptureLoss();
    const parts = lagParts({
      heardUntil: this.deps.timeline()?.endWall() ?? null,
      engineBacklogSeconds: engine()?.backlogSeconds?.() ?? 0,
      now: Date.now(),
    });
    const lagSeconds = parts.undeliveredSeconds + parts.engineBacklogSeconds;
    const transition = this.lag.observe(lagSeconds);
    if (transition) void outbox.health({ kind: transition.kind, lagSeconds: round(lagSeconds) });
    if (transition?.kind === 'lagging') {
      // Which part is behind: the page handing audio over (a starved browser) or the recognizer.
      log.warn(
        {
          lagSeconds: round(lagSeconds),
          undeliveredSeconds: round(parts.undeliveredSeconds),
          engineBacklogSeconds: round(parts.engineBacklogSeconds),
        },
        'transcription is falling behind the meeting',
      );
    } else if (transition?.kind === 'caught_up') {
      log.info(
        { lagSeconds: round(lagSeconds), worstSeconds: round(this.lag.worstSeconds) },
        'transcription caught up',
      );
    }
  }

  /** The capture is over: a loss stretch still open is said too, up to the last sample heard. */
  finishCaptureLoss(): void {
    const timeline = this.deps.timeline();
    const lastHeard = timeline?.endWall();
    if (!timeline || lastHeard == null) return;
    const loss = this.captureLoss.finish(timeline.missingSeconds(), lastHeard);
    if (loss) this.reportCaptureLoss(loss);
  }

  /** The engine fell too far behind and dropped the audio between these capture seconds unheard. */
  engineDropped(start: number, end: number): void {
    const timeline = this.deps.timeline();
    const from = timeline?.wallAt(start);
    const to = timeline?.wallAt(end);
    const bounds =
      from != null && to != null
        ? { droppedFrom: new Date(from).toISOString(), droppedTo: new Date(to).toISOString() }
        : {};
    const lagSeconds = round(this.lag.lagSeconds);
    void this.deps.outbox.health({ kind: 'audio_dropped', lagSeconds, ...bounds, droppedBy: 'engine' });
    this.deps.log.warn(
      { droppedSeconds: round(end - start), ...bounds, lagSeconds },
      'the engine fell too far behind and dropped audio unheard',
    );
  }

  /** Audio the page's capture never heard (its clock skipped it): said, as the engine's drops are. */
  private checkCaptureLoss(): void {
    const timeline = this.deps.timeline();
    if (!timeline || timeline.startWall() === null) return;
    const loss = this.captureLoss.observe(timeline.missingSeconds(), Date.now());
    if (loss) this.reportCaptureLoss(loss);
  }

  private reportCaptureLoss(loss: CaptureLossReport): void {
    const bounds = {
      droppedFrom: new Date(loss.from).toISOString(),
      droppedTo: new Date(loss.to).toISOString(),
    };
    const lagSeconds = round(this.lag.lagSeconds);
    const droppedSeconds = round(loss.lostSeconds);
    void this.deps.outbox.health({
      kind: 'audio_dropped',
      lagSeconds,
      ...bounds,
      droppedBy: 'capture',
      droppedSeconds,
    });
    this.deps.log.warn(
      { droppedSeconds, ...bounds, lagSeconds },
      "the audio capture lost part of the meeting's audio (the browser is short of CPU)",
    );
  }
}
