import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { type BotSessionEntry, listBotSessions } from '../../shared/bots/session-registry.js';
import { type BotStreamKind, botSessionStream } from '../../shared/contract/streams.js';
import type { BoundStream } from './stream-consumer.js';

/** How often a member says it is still there, and reads the registry and the members again. */
export const INGEST_SHARD_REFRESH_MS = 1000;
/** A member that said nothing this long (its worker died) is no longer given streams. */
export const INGEST_MEMBER_TTL_MS = 8000;

/** The sorted set of the ingesting workers, each scored with when it last said it is there. */
export function ingestMembersKey(prefix: string): string {
  return `${prefix}:ingest-members`;
}

/**
 * Adds (or refreshes) a member with the Redis clock's time, drops members silent for longer than
 * the TTL, and returns who is left: one clock for every worker, whatever their hosts' clocks say.
 */
const JOIN_AND_LIST = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 4)
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;

export interface IngestShardOptions {
  /** A non-blocking connection. */
  redis: Redis;
  prefix: string;
  /** This worker's name among the members (its consumer name). */
  member: string;
  refreshMs?: number;
  memberTtlMs?: number;
}

interface Snapshot {
  at: number;
  /** The registered sessions this member ingests. */
  mine: Array<[sessionId: string, entry: BotSessionEntry]>;
}

/**
 * Which bots' streams this worker ingests. Every worker's ingester is a member of a set in Redis;
 * each registered bot session goes to one member by rendezvous hashing (the member whose hash with
 * the session is highest), so a second worker halves the streams each one reads instead of reading
 * them all again, and a member joining or leaving moves only its own share. A member leaves at once
 * when its ingester stops, or INGEST_MEMBER_TTL_MS after its worker died; messages it had read and
 * not acknowledged are then taken over by the stream's new reader (StreamConsumer.claimAbandoned).
 *
 * While the members change, two workers may read one stream for a moment (the consumer group still
 * hands each message to one of them) or none for up to a refresh: nothing is lost either way.
 */
export class IngestShard {
  private readonly refreshMs: number;
  private readonly memberTtlMs: number;
  private snapshot: Snapshot | undefined;
  private refreshing: Promise<Snapshot> | undefined;
  /** Owners worked out for the current members, by session (hashing is the costly part). */
  private owners = new Map<string, string>();
  private ownersFor = '';
  private left = false;

  constructor(private readonly options: IngestShardOptions) {
    this.refreshMs = options.refreshMs ?? INGEST_SHARD_REFRESH_MS;
    this.memberTtlMs = options.memberTtlMs ?? INGEST_MEMBER_TTL_MS;
  }

  /**
   * The streams of one kind to read: this member's bots' own, bound to their meetings, and the
   * legacy shared stream (read by every member: bots of an older worker may still write there).
   * `fresh` asks the registry and the members again rather than using the last refresh's answer.
   */
  streamsOf(kind: BotStreamKind, legacyStream: string): (fresh?: boolean) => Promise<BoundStream[]> {
    const { prefix } = this.options;
    return async (fresh = false) => {
      const { mine } = await this.current(fresh);
      const own = mine.map(([sessionId, entry]) => ({
        stream: botSessionStream(prefix, sessionId, kind),
        binding: { meetingId: entry.meetingId, sessionId },
      }));
      return [{ stream: legacyStream, binding: null }, ...own];
    };
  }

  /** This worker stops ingesting: its share goes to the other members at their next refresh. */
  async leave(): Promise<void> {
    this.left = true;
    await this.options.redis.zrem(ingestMembersKey(this.options.prefix), this.options.member);
  }

  private current(fresh: boolean): Promise<Snapshot> {
    const snapshot = this.snapshot;
    if (!fresh && snapshot && Date.now() - snapshot.at < this.refreshMs) return Promise.resolve(snapshot);
    if (!this.refreshing) {
      this.refreshing = this.refresh().finally(() => {
        this.refreshing = undefined;
      });
    }
    return this.refreshing;
  }

  private async refresh(): Promise<Snapshot> {
    const { redis, prefix, member } = this.options;
    const [members, sessions] = await Promise.all([this.members(), listBotSessions(redis, prefix)]);
    const membersKey = members.join('\n');
    if (membersKey !== this.ownersFor) {
      this.owners = new Map();
      this.ownersFor = membersKey;
    }
    const mine: Snapshot['mine'] = [];
    const owners = new Map<string, string>();
    for (const [sessionId, entry] of sessions) {
      const owner = this.owners.get(sessionId) ?? ownerOf(sessionId, members);
      owners.set(sessionId, owner);
      if (owner === member) mine.push([sessionId, entry]);
    }
    // Only sessions still registered are remembered.
    this.owners = owners;
    this.snapshot = { at: Date.now(), mine };
    return this.snapshot;
  }

  /** The live members, this one among them (unless it left: then it asks only who is there). */
  private async members(): Promise<string[]> {
    const { redis, prefix, member } = this.options;
    const key = ingestMembersKey(prefix);
    if (this.left) {
      const others = await redis.zrange(key, 0, -1);
      return [...new Set([...others, member])].sort();
    }
    const members = (await redis.eval(JOIN_AND_LIST, 1, key, member, this.memberTtlMs)) as string[];
    return [...members].sort();
  }
}

/** The member with the highest hash of (member, session): the same answer on every worker. */
export function ownerOf(sessionId: string, members: readonly string[]): string {
  let best = '';
  let bestScore = -1;
  for (const member of members) {
    const score = createHash('md5').update(member).update('\n').update(sessionId).digest().readUIntBE(0, 6);
    if (score > bestScore || (score === bestScore && member < best)) {
      best = member;
      bestScore = score;
    }
  }
  return best;
}
