import type { Redis } from 'ioredis';
import {
  type ChatMessageEvent,
  chatMessageEvent,
  type CompletedReason,
  type FailedReason,
  type LifecycleEvent,
  lifecycleEvent,
  type ParticipantEventMessage,
  participantEventMessage,
  type RecordingChunkMessage,
  recordingChunkMessage,
  type TranscriptionHealthMessage,
  type TranscriptSegmentMessage,
  transcriptionHealthMessage,
  transcriptSegmentMessage,
} from '../shared/contract/events.js';
import { streamFields } from '../shared/contract/stream-codec.js';
import {
  type BotStreamKind,
  type BotStreamLayout,
  botSessionStream,
  sharedBotStream,
} from '../shared/contract/streams.js';
import { sleep } from '../shared/infra/async.js';
import type { Logger } from '../shared/infra/logger.js';

/** How long an append waits for a credential Redis lost (a restart without an ACL file): 3 minutes. */
const CREDENTIAL_RETRY_MS = 1000;
const CREDENTIAL_RETRIES = 180;

function isCredentialMissing(error: unknown): boolean {
  return /WRONGPASS|NOAUTH/.test(String((error as Error)?.message));
}

export type LifecycleStep =
  | { status: 'joining' | 'awaiting_admission' | 'active' }
  | { status: 'completed'; reason: CompletedReason; detail?: string }
  | { status: 'failed'; reason: FailedReason; detail?: string };

export interface OutboxIdentity {
  meetingId: number;
  sessionId: string;
  streamPrefix: string;
  /** `own` unless the worker that launched the bot only reads the shared streams (bot-config.ts). */
  streams?: BotStreamLayout;
}

/** What the session needs from the outbox (tests pass a recording fake). */
export type EventSink = Pick<Outbox, 'event' | 'segment' | 'health' | 'recordingChunk' | 'drain'>;

/** Where the chat messages the bot reads go. */
export type ChatSink = Pick<Outbox, 'chat'>;

/** Where the participant changes the bot sees go. */
export type ParticipantSink = Pick<Outbox, 'participant'>;

export type ParticipantChange = Omit<ParticipantEventMessage, 'meetingId' | 'sessionId' | 'seq'>;

export type HealthReport = Omit<TranscriptionHealthMessage, 'meetingId' | 'sessionId' | 'at'>;

/**
 * Everything the bot tells the workers goes through here, in order: lifecycle events (numbered
 * per session), transcript segments, transcription health and recording chunks, each kind on the
 * bot's own stream. Appends are chained so a slow XADD never reorders them.
 */
export class Outbox {
  private seq = 0;
  private participantSeq = 0;
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
    return this.append('events', event);
  }

  segment(message: Omit<TranscriptSegmentMessage, 'meetingId' | 'sessionId'>): Promise<void> {
    const segment = transcriptSegmentMessage.parse({
      ...message,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
    });
    return this.append('segments', segment);
  }

  health(report: HealthReport, at = new Date()): Promise<void> {
    const message = transcriptionHealthMessage.parse({
      ...report,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
      at: at.toISOString(),
    });
    return this.append('health', message);
  }

  recordingChunk(message: Omit<RecordingChunkMessage, 'meetingId' | 'sessionId'>): Promise<void> {
    const chunk = recordingChunkMessage.parse({
      ...message,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
    });
    return this.append('recording', chunk);
  }

  /** A chat message the bot read, on its own chat stream. */
  chat(message: Omit<ChatMessageEvent, 'meetingId' | 'sessionId'>): Promise<void> {
    const event = chatMessageEvent.parse({
      ...message,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
    });
    return this.append('chat', event);
  }

  /** A participant change the bot saw, numbered per session, on its own participants stream. */
  participant(change: ParticipantChange): Promise<void> {
    const event = participantEventMessage.parse({
      ...change,
      meetingId: this.identity.meetingId,
      sessionId: this.identity.sessionId,
      seq: this.participantSeq++,
    });
    return this.append('participants', event);
  }

  /** Resolves once every append so far has been attempted. */
  drain(): Promise<void> {
    return this.tail;
  }

  /** Appends that failed even after ioredis' own retries (logged; the caller decides what to do). */
  failedAppends(): number {
    return this.failures;
  }

  /** Appends to the bot's own stream of that kind (the only streams its credential reaches). */
  private append(kind: BotStreamKind, payload: unknown): Promise<void> {
    const { streamPrefix, sessionId, streams = 'own' } = this.identity;
    const stream =
      streams === 'own'
        ? botSessionStream(streamPrefix, sessionId, kind)
        : sharedBotStream(streamPrefix, kind);
    const fields = streamFields(payload);
    const next = this.tail.then(async () => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          await this.redis.xadd(stream, '*', ...fields);
          return;
        } catch (error) {
          // Redis restarted without the bot's user: ioredis fails what it queued meanwhile when its
          // login is refused. The worker creates the user again as soon as Redis is back
          // (worker/fleet/bot-sessions.ts); wait for it rather than lose the message.
          if (isCredentialMissing(error) && attempt < CREDENTIAL_RETRIES) {
            if (attempt === 1) this.log.warn({ err: error, stream }, 'credential refused; retrying');
            await sleep(CREDENTIAL_RETRY_MS);
            continue;
          }
          this.failures += 1;
          this.log.error({ err: error, stream }, 'could not append to stream');
          return;
        }
      }
    });
    this.tail = next;
    return next;
  }
}
