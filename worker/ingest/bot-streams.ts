import type { Redis } from 'ioredis';
import { listBotSessions } from '../../shared/bots/session-registry.js';
import { type BotStreamKind, botSessionStream } from '../../shared/contract/streams.js';
import type { BoundStream } from './stream-consumer.js';

/**
 * The streams of one kind the ingesters read: every registered bot's own, bound to the meeting its
 * worker launched it for, and the legacy shared stream (`binding: null`) where bots of an older
 * worker may still write during a rolling upgrade.
 */
export function botStreamsOf(
  redis: Redis,
  prefix: string,
  kind: BotStreamKind,
  legacyStream: string,
): () => Promise<BoundStream[]> {
  return async () => {
    const sessions = await listBotSessions(redis, prefix);
    const own = [...sessions].map(([sessionId, entry]) => ({
      stream: botSessionStream(prefix, sessionId, kind),
      binding: { meetingId: entry.meetingId, sessionId },
    }));
    return [{ stream: legacyStream, binding: null }, ...own];
  };
}
