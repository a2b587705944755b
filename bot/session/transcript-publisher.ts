import type { Logger } from '../../shared/infra/logger.js';
import type { EngineSegment } from '../engines/engine.js';
import type { EventSink } from '../outbox.js';
import type { SpeakerAttribution } from '../speakers/attribution.js';

/** Maps positions in the captured audio (engine seconds) to wall time; null before any audio. */
export interface CaptureClock {
  wallAt(seconds: number): number | null;
  startWall(): number | null;
}

/**
 * Turns engine segments into contract messages: the speaker from the page's speaking evidence,
 * absolute times from the capture's timeline (the wall time each chunk of audio was heard), the
 * language in force when the engine gave none. `start`/`end` are the absolute times counted from
 * the first captured sample or, for a relaunched bot, from the transcript origin, so the meeting
 * keeps one time line and offsets always agree with the absolute times.
 */
export class TranscriptPublisher {
  private language: string | null;
  private published = 0;

  constructor(
    private readonly outbox: EventSink,
    private readonly speakers: Pick<SpeakerAttribution, 'attribute'>,
    private readonly clock: CaptureClock,
    language: string | null,
    private readonly log: Logger,
    private readonly transcriptOriginMs: number | null = null,
  ) {
    this.language = language;
  }

  setLanguage(language: string | null): void {
    this.language = language;
  }

  count(): number {
    return this.published;
  }

  /**
   * The transcript time (seconds) of the first captured sample, which is the recording's time zero:
   * 0 unless this bot carries on an earlier bot's transcript (a relaunch), which began before it.
   */
  captureStartSeconds(): number {
    const captureStart = this.clock.startWall();
    return captureStart === null ? 0 : this.secondsSinceOrigin(captureStart, captureStart);
  }

  /**
   * Where a wall-clock instant falls on the transcript's time line (seconds, as segments' `start`);
   * before any audio was captured, counted from the transcript origin or 0.
   */
  transcriptSeconds(wall: number): number {
    const captureStart = this.clock.startWall() ?? this.transcriptOriginMs ?? wall;
    return this.secondsSinceOrigin(wall, captureStart);
  }

  publish(segment: EngineSegment): void {
    const start = Math.max(0, segment.start);
    const end = Math.max(start, segment.end);
    const speaker = this.speakers.attribute(start, end);
    // No audio yet can't happen for a real segment; if it did, the segment ends now.
    const fallbackStart = Date.now() - (end - start) * 1000;
    const startWall = this.clock.wallAt(start) ?? fallbackStart;
    const endWall = Math.max(startWall, this.clock.wallAt(end) ?? startWall + (end - start) * 1000);
    const captureStart = this.clock.startWall() ?? startWall - start * 1000;
    const offset = (wall: number) => this.secondsSinceOrigin(wall, captureStart);
    this.published += 1;
    this.log.debug({ segmentId: segment.id, start, end, speaker, final: segment.final }, 'segment');
    void this.outbox.segment({
      segmentId: segment.id,
      start: offset(startWall),
      end: offset(endWall),
      text: segment.text,
      speaker,
      language: segment.language ?? this.language,
      absoluteStartTime: new Date(startWall).toISOString(),
      absoluteEndTime: new Date(endWall).toISOString(),
      final: segment.final,
    });
  }

  /** Transcript time of a wall instant: counted from the transcript's origin, or from the capture's start. */
  private secondsSinceOrigin(wall: number, captureStart: number): number {
    const origin =
      this.transcriptOriginMs === null ? captureStart : Math.min(this.transcriptOriginMs, captureStart);
    return Math.max(0, Math.round(wall - origin) / 1000);
  }
}
