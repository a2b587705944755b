import type { Redis } from 'ioredis';
import type { ParticipantEventType } from '../../shared/contract/events.js';
import { streamFields } from '../../shared/contract/stream-codec.js';
import {
  botChatStream,
  botEventsStream,
  botParticipantsStream,
  botSegmentsStream,
} from '../../shared/contract/streams.js';
import { createLogger } from '../../shared/infra/logger.js';
import { claimLaunch } from '../../shared/meetings/launch-store.js';
import { Ingester, type IngesterOptions } from '../../worker/ingest/ingester.js';
import { googleMeetBot, type TestApi, type TestUser } from './api.js';
import { tempRecordingStorage } from './recording-storage.js';
import { createTestRedis } from './redis.js';

/**
 * What a bot writes, without a container: its lifecycle events and segments go onto the real
 * Redis streams, and the real ingester (as a worker runs it) commits them and announces the change.
 */
export class FakeBots {
  private seq = 0;
  private readonly connections: Redis[] = [];
  private readonly redis: Redis;
  private readonly ingester: Ingester;

  constructor(
    private readonly api: TestApi,
    options: Pick<IngesterOptions, 'onSegmentsCommitted'> = {},
  ) {
    const [redis, eventsRedis, segmentsRedis] = [createTestRedis(), createTestRedis(), createTestRedis()];
    this.connections.push(redis, eventsRedis, segmentsRedis);
    this.redis = redis;
    this.ingester = new Ingester({
      db: api.database.db,
      eventsRedis,
      segmentsRedis,
      publisher: redis,
      prefix: api.prefix,
      consumerName: 'fake-bots',
      recordingStorage: tempRecordingStorage(),
      log: createLogger('fake-bots', 'silent'),
      ...options,
    });
    this.ingester.start();
  }

  /** POST /bots, then claims the launch as a worker would; returns the meeting and its session. */
  async startMeeting(
    user: TestUser,
    nativeId: string,
    extra: Record<string, unknown> = {},
  ): Promise<{ meetingId: number; sessionId: string }> {
    const created = await this.api.request('POST', '/bots', {
      key: user.key,
      json: { ...googleMeetBot(nativeId), ...extra },
    });
    if (created.status !== 201) throw new Error(`POST /bots: ${created.status} ${created.text}`);
    // The meeting's id in it: two users' meetings may share a native id.
    const sessionId = `session-${nativeId}-${created.body.id}`;
    await claimLaunch(this.api.database.db, created.body.id, { sessionId, workerId: 'fake-bots' });
    return { meetingId: created.body.id, sessionId };
  }

  async event(meetingId: number, sessionId: string, status: string, extra: Record<string, unknown> = {}) {
    this.seq += 1;
    await this.redis.xadd(
      botEventsStream(this.api.prefix),
      '*',
      ...streamFields({
        meetingId,
        sessionId,
        status,
        at: new Date().toISOString(),
        seq: this.seq,
        ...extra,
      }),
    );
  }

  async segment(
    meetingId: number,
    sessionId: string,
    segment: { id: string; start: number; text: string; final?: boolean; speaker?: string },
  ) {
    const base = Date.UTC(2026, 10, 22, 9);
    await this.redis.xadd(
      botSegmentsStream(this.api.prefix),
      '*',
      ...streamFields({
        meetingId,
        sessionId,
        segmentId: segment.id,
        start: segment.start,
        end: segment.start + 1,
        text: segment.text,
        speaker: segment.speaker ?? 'Ann',
        language: 'en',
        absoluteStartTime: new Date(base + segment.start * 1000).toISOString(),
        absoluteEndTime: new Date(base + (segment.start + 1) * 1000).toISOString(),
        final: segment.final ?? true,
      }),
    );
  }

  /** A chat message the bot read (the legacy shared stream: no session registry needed). */
  async chat(
    meetingId: number,
    sessionId: string,
    message: { key: string; sender: string; text: string; fromBot?: boolean; seconds: number },
  ) {
    const base = Date.UTC(2026, 10, 22, 9);
    await this.redis.xadd(
      botChatStream(this.api.prefix),
      '*',
      ...streamFields({
        meetingId,
        sessionId,
        messageKey: message.key,
        sender: message.sender,
        text: message.text,
        fromBot: message.fromBot ?? false,
        sentAt: new Date(base + message.seconds * 1000).toISOString(),
        seconds: message.seconds,
      }),
    );
  }

  /** A participant change as a bot session sends it (its `seq`-th participant message). */
  async participant(
    meetingId: number,
    sessionId: string,
    change: { seq: number; type: ParticipantEventType; name: string; seconds: number },
  ) {
    const base = Date.UTC(2026, 10, 22, 9);
    await this.redis.xadd(
      botParticipantsStream(this.api.prefix),
      '*',
      ...streamFields({
        meetingId,
        sessionId,
        seq: change.seq,
        type: change.type,
        name: change.name,
        at: new Date(base + change.seconds * 1000).toISOString(),
        seconds: change.seconds,
      }),
    );
  }

  async close(): Promise<void> {
    await this.ingester.stop();
    for (const connection of this.connections) connection.disconnect();
  }
}
