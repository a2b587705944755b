import type { Redis } from 'ioredis';
import {
  botChatStream,
  botDeadLetterStream,
  botEventsStream,
  botHealthStream,
  botParticipantsStream,
  botRecordingStream,
  botSegmentsStream,
} from '../../shared/contract/streams.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { meetingAnnouncer } from '../../shared/meetings/changes.js';
import type { RecordingStorage } from '../../shared/recordings/storage.js';
import type { SegmentRecord } from '../../shared/transcripts/store.js';
import type { BotOutcomeDeps } from '../retries/bot-outcome.js';
import { chatMessageHandler } from './chat-messages.js';
import { IngestShard } from './ingest-shard.js';
import { lifecycleEventHandler } from './lifecycle-events.js';
import { participantEventHandler } from './participant-events.js';
import { recordingChunkHandler } from './recording-chunks.js';
import { StreamConsumer } from './stream-consumer.js';
import { transcriptSegmentHandler } from './transcript-segments.js';
import { transcriptionHealthHandler } from './transcription-health.js';

export const INGEST_GROUP = 'ingesters';

/**
 * The least time between two reads of one consumer while messages trickle in: each read names every
 * stream of the worker's share, so reading at every new message would cost as much per message as
 * the fleet is large. A full batch is read again at once.
 */
export const INGEST_PACE_MS = 100;

export interface IngesterOptions {
  db: Knex;
  /** Dedicated connections: each consumer blocks on its own. */
  eventsRedis: Redis;
  segmentsRedis: Redis;
  /** For the health reports; a duplicate of eventsRedis (closed by stop()) when not given. */
  healthRedis?: Redis;
  /** For the recording chunks; a duplicate of eventsRedis (closed by stop()) when not given. */
  recordingRedis?: Redis;
  /** For the chat messages; a duplicate of eventsRedis (closed by stop()) when not given. */
  chatRedis?: Redis;
  /** For the participant events; a duplicate of eventsRedis (closed by stop()) when not given. */
  participantsRedis?: Redis;
  /** Where recording chunks go. */
  recordingStorage: RecordingStorage;
  /** A non-blocking connection to announce committed changes to live streams. */
  publisher: Redis;
  prefix: string;
  consumerName: string;
  log: Logger;
  /** Told of every committed batch of segment writes (a worker counts them for its metrics). */
  onSegmentsCommitted?: (written: SegmentRecord[]) => void;
  /** How long another consumer's message may stay pending before this one takes it over. */
  claimIdleMs?: number;
  /** Retries of refused bots (worker/retries/bot-outcome.ts); none when absent. */
  joinRetry?: BotOutcomeDeps['retry'];
  /**
   * A bot that stopped on a signal while its meeting went on is left to its exit's handling, which
   * knows whether the platform ended it (an eviction: relaunched) or someone did (completed). True
   * where the runtime says why (Kubernetes); on Docker the bot's own word is applied at once.
   */
  signalledStopsAwaitExit?: boolean;
}

/**
 * The consumers of the bots' streams (each bot's own, and the legacy shared ones), in one consumer
 * group per stream shared by every worker replica.
 */
export class Ingester {
  readonly events: StreamConsumer;
  readonly segments: StreamConsumer;
  readonly health: StreamConsumer;
  readonly recordings: StreamConsumer;
  readonly chat: StreamConsumer;
  readonly participants: StreamConsumer;
  private readonly ownConnections: Redis[] = [];
  private readonly shard: IngestShard;
  private readonly log: Logger;

  constructor(options: IngesterOptions) {
    const announce = meetingAnnouncer(options.publisher, options.prefix, options.log);
    const shard = new IngestShard({
      redis: options.publisher,
      prefix: options.prefix,
      member: options.consumerName,
    });
    this.shard = shard;
    this.log = options.log;
    const common = {
      group: INGEST_GROUP,
      consumer: options.consumerName,
      deadLetterStream: botDeadLetterStream(options.prefix),
      paceMs: INGEST_PACE_MS,
      ...(options.claimIdleMs !== undefined && { claimIdleMs: options.claimIdleMs }),
    };
    this.events = new StreamConsumer({
      ...common,
      redis: options.eventsRedis,
      name: 'events',
      streams: shard.streamsOf('events', botEventsStream(options.prefix)),
      handler: lifecycleEventHandler(
        options.db,
        options.log.child({ component: 'ingest-events' }),
        announce,
        options.joinRetry,
        options.signalledStopsAwaitExit ?? false,
      ),
      log: options.log,
      // Status changes are few and ordered: small batches keep them prompt.
      batchSize: 50,
    });
    this.segments = new StreamConsumer({
      ...common,
      redis: options.segmentsRedis,
      name: 'segments',
      streams: shard.streamsOf('segments', botSegmentsStream(options.prefix)),
      handler: transcriptSegmentHandler(
        options.db,
        options.log.child({ component: 'ingest-segments' }),
        announce,
        options.onSegmentsCommitted,
      ),
      log: options.log,
      batchSize: 500,
    });
    const healthRedis = options.healthRedis ?? this.ownConnection(options.eventsRedis);
    this.health = new StreamConsumer({
      ...common,
      redis: healthRedis,
      name: 'health',
      streams: shard.streamsOf('health', botHealthStream(options.prefix)),
      handler: transcriptionHealthHandler(options.db, options.log.child({ component: 'ingest-health' })),
      log: options.log,
      batchSize: 50,
    });
    const recordingRedis = options.recordingRedis ?? this.ownConnection(options.eventsRedis);
    this.recordings = new StreamConsumer({
      ...common,
      redis: recordingRedis,
      name: 'recording',
      streams: shard.streamsOf('recording', botRecordingStream(options.prefix)),
      handler: recordingChunkHandler(
        options.db,
        options.recordingStorage,
        options.log.child({ component: 'ingest-recordings' }),
        announce,
      ),
      log: options.log,
      // Chunks are up to a few hundred KB each, written one by one to the storage.
      batchSize: 20,
      deleteAcknowledged: true,
    });
    const chatRedis = options.chatRedis ?? this.ownConnection(options.eventsRedis);
    this.chat = new StreamConsumer({
      ...common,
      redis: chatRedis,
      name: 'chat',
      streams: shard.streamsOf('chat', botChatStream(options.prefix)),
      handler: chatMessageHandler(options.db, options.log.child({ component: 'ingest-chat' }), announce),
      log: options.log,
      batchSize: 100,
    });
    const participantsRedis = options.participantsRedis ?? this.ownConnection(options.eventsRedis);
    this.participants = new StreamConsumer({
      ...common,
      redis: participantsRedis,
      name: 'participants',
      streams: shard.streamsOf('participants', botParticipantsStream(options.prefix)),
      handler: participantEventHandler(
        options.db,
        options.log.child({ component: 'ingest-participants' }),
        announce,
      ),
      log: options.log,
      batchSize: 100,
    });
  }

  start(): void {
    for (const consumer of this.consumers()) consumer.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.consumers().map((consumer) => consumer.stop()));
    // Its share goes to the other workers now, not once its membership lapses.
    await this.shard
      .leave()
      .catch((error: unknown) =>
        this.log.warn({ err: error }, 'could not leave the ingest shard; its share moves when it lapses'),
      );
    await Promise.all(this.ownConnections.map((redis) => redis.quit().catch(() => redis.disconnect())));
  }

  private consumers(): StreamConsumer[] {
    return [this.events, this.segments, this.health, this.recordings, this.chat, this.participants];
  }

  private ownConnection(like: Redis): Redis {
    const redis = like.duplicate();
    this.ownConnections.push(redis);
    return redis;
  }
}
