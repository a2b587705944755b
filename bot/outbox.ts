import type { Redis } from 'ioredis';
import {
  type CompletedReason,
  type FailedReason,
  type LifecycleEvent,
  lifecycleEvent,
  type RecordingChunkMessage,
  recordingChunkMessage,
  type TranscriptionHealthMessage,
  type TranscriptSegmentMessage,
  transcriptionHealthMessage,
  transcriptSegmentMessage,
} from '../shared/contract/events.js';
import { streamFields } from '../shared/contract/stream-codec.js';
import {
  botEventsStream,
  botHealthStream,
  botRecordingStream,
  botSegmentsStream,
} from '../shared/contract/streams.js';
import type { Logger } from '../shared/infra/logger.js';

export type LifecycleStep =
  | { status: 'joining' | 'awaiting_admission' | 'active' }
  | { status: 'completed'; reason: CompletedReason; detail?: string }
  | { status: 'failed'; reason: FailedReason; detail?: string };

export interface OutboxIdentity {
  meetingId: number;
  sessionId: string;
  streamPrefix: string;
}

/** What the session needs from the outbox (tests pass a recording fake). */
export type EventSink = Pick<Outbox, 'event' | 'segment' | 'health' | 'recordingChunk' | 'drain'>;

export type HealthReport = Omit<TranscriptionHealthMessage, 'meetingId' | 'sessionId' | 'at'>;

/**
 * Everything the bot tells the workers goes through here, in order: lifecycle events (numbered
 * per session), transcript segments, transcription health and recording chunks. Appends are chained so a slow XADD never reorders them.
 */
export class Outbox {
  private seq = 0;
  private tail: Promise<void> = Promise.resolve();
  private failures = 0;

  constructor(
    private readonly redis: Redis,
    private readonly identity: OutboxIdentity,
    private readonly log: Logger,
  ) {}

  event(step: LifecycleStep, at = new Date()): Promise<void> {
    const event: LifecycleEvent = lifecycleEvent.parse({
      ...step,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
      at: at.toISOString(),
      seq: this.seq++,
    });
    this.log.info({ event: event.status, reason: 'reason' in event ? event.reason : undefined }, 'lifecycle');
    return this.append(botEventsStream(this.identity.streamPrefix), event);
  }

  segment(message: Omit<TranscriptSegmentMessage, 'meetingId' | 'sessionId'>): Promise<void> {
    const segment = transcriptSegmentMessage.parse({
      ...message,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
    });
    return this.append(botSegmentsStream(this.identity.streamPrefix), segment);
  }

  health(report: HealthReport, at = new Date()): Promise<void> {
    const message = transcriptionHealthMessage.parse({
      ...report,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
      at: at.toISOString(),
    });
    return this.append(botHealthStream(this.identity.streamPrefix), message);
  }

  recordingChunk(message: Omit<RecordingChunkMessage, 'meetingId' | 'sessionId'>): Promise<void> {
    const chunk = recordingChunkMessage.parse({
      ...message,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
    });
    return this.append(botRecordingStream(this.identity.streamPrefix), chunk);
  }

  /** Resolves once every append so far has been attempted. */
  drain(): Promise<void> {
    return this.tail;
  }

  /** Appends that failed even after ioredis' own retries (logged; the caller decides what to do). */
  failedAppends(): number {
    return this.failures;
  }

  private append(stream: string, payload: unknown): Promise<void> {
    const fields = streamFields(payload);
    const next = this.tail.then(async () => {
      try {
        await this.redis.xadd(stream, '*', ...fields);
      } catch (error) {
        this.failures += 1;
        this.log.error({ err: error, stream }, 'could not append to stream');
      }
    });
    this.tail = next;
    return next;
  }
}
