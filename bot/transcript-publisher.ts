import type { Logger } from '../shared/infra/logger.js';
import type { EngineSegment } from './engines/engine.js';
import type { EventSink } from './outbox.js';
import type { SpeakerTimeline } from './speakers.js';

/**
 * Turns engine segments into contract messages: the speaker from the page's speaking evidence,
 * absolute times from the wall time of the first captured sample, the language in force when
 * the engine gave none. With a transcript origin (a relaunched bot), `start`/`end` count from it
 * instead of from this bot's capture, so the meeting keeps one time line.
 */
export class TranscriptPublisher {
  private language: string | null;
  private published = 0;

  constructor(
    private readonly outbox: EventSink,
    private readonly speakers: SpeakerTimeline,
    private readonly captureStartedAt: () => number | null,
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

  publish(segment: EngineSegment): void {
    const origin = this.captureStartedAt() ?? Date.now() - segment.end * 1000;
    const start = Math.max(0, segment.start);
    const end = Math.max(start, segment.end);
    const speaker = this.speakers.attribute(start, end);
    const shift =
      this.transcriptOriginMs === null ? 0 : Math.max(0, (origin - this.transcriptOriginMs) / 1000);
    this.published += 1;
    this.log.debug({ segmentId: segment.id, start, end, shift, speaker, final: segment.final }, 'segment');
    void this.outbox.segment({
      segmentId: segment.id,
      start: start + shift,
      end: end + shift,
      text: segment.text,
      speaker,
      language: segment.language ?? this.language,
      absoluteStartTime: new Date(origin + start * 1000).toISOString(),
      absoluteEndTime: new Date(origin + end * 1000).toISOString(),
      final: segment.final,
    });
  }
}
