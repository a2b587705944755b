import type { Redis } from 'ioredis';
import type { Logger } from '../infra/logger.js';

/**
 * Wake-up calls for live streams: writers announce "meeting N changed" after their Postgres commit;
 * every API replica hears it through Redis pub/sub and its streams read what changed from Postgres.
 * A lost announcement only delays an update until the streams' next poll.
 */
export function meetingChangesChannel(prefix: string, db: number): string {
  return `${prefix}:db${db}:meeting-changes`;
}

/**
 * Keys live in one numbered database, but pub/sub channels are shared by the whole Redis server:
 * two deployments with the same QUEUE_PREFIX on different databases would hear each other's
 * announcements unless the channel names the database too. The client's own database is used, so
 * publisher and subscriber agree whatever REDIS_URL spells.
 */
function channelOf(redis: Redis, prefix: string): string {
  return meetingChangesChannel(prefix, redis.options.db ?? 0);
}

/** Tells every listener these meetings changed; resolves even when Redis is unreachable (it logs instead). */
export type AnnounceChanges = (meetingIds: Iterable<number>) => Promise<void>;

/** The announcer writers use after their commit: a lost announcement must never fail the write it reports. */
export function meetingAnnouncer(redis: Redis, prefix: string, log: Logger): AnnounceChanges {
  return async (meetingIds) => {
    try {
      await announceMeetingChanges(redis, prefix, meetingIds);
    } catch (error) {
      log.warn({ err: error }, 'could not announce meeting changes');
    }
  };
}

export async function announceMeetingChanges(
  redis: Redis,
  prefix: string,
  meetingIds: Iterable<number>,
): Promise<void> {
  const ids = [...new Set(meetingIds)];
  if (ids.length === 0) return;
  await redis.publish(channelOf(redis, prefix), JSON.stringify(ids));
}

/** One subscription per process, dispatching to the streams open in it. */
export class MeetingChangeListener {
  private readonly listeners = new Map<number, Set<() => void>>();
  private readonly everyChange = new Set<(meetingIds: number[]) => void>();
  private started: Promise<void> | undefined;

  constructor(
    private readonly subscriber: Redis,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {}

  /** Subscribes (once); resolves when announcements are being received. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.subscriber.on('message', (_channel: string, message: string) => this.dispatch(message));
      await this.subscriber.subscribe(channelOf(this.subscriber, this.prefix));
    })().catch((error: unknown) => {
      this.started = undefined;
      throw error;
    });
    return this.started;
  }

  /** Calls `listener` whenever the meeting is announced as changed; returns the unsubscribe function. */
  listen(meetingId: number, listener: () => void): () => void {
    void this.start().catch((error: unknown) =>
      this.log.warn({ err: error }, 'could not subscribe to meeting changes'),
    );
    let set = this.listeners.get(meetingId);
    if (!set) {
      set = new Set();
      this.listeners.set(meetingId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(meetingId);
    };
  }

  /** Calls `listener` with the ids of every announcement, whatever the meetings; returns the unsubscribe function. */
  listenToAll(listener: (meetingIds: number[]) => void): () => void {
    void this.start().catch((error: unknown) =>
      this.log.warn({ err: error }, 'could not subscribe to meeting changes'),
    );
    this.everyChange.add(listener);
    return () => {
      this.everyChange.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.everyChange.clear();
    await this.subscriber.quit().catch(() => undefined);
  }

  private dispatch(message: string): void {
    let ids: unknown;
    try {
      ids = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(ids)) return;
    const meetingIds = ids.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0);
    for (const listener of this.everyChange) listener(meetingIds);
    for (const id of meetingIds) {
      for (const listener of this.listeners.get(Number(id)) ?? []) listener();
    }
  }
}
