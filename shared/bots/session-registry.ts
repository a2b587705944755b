import type { Redis } from 'ioredis';
import { z } from 'zod';
import { botSessionsKey } from '../contract/streams.js';

/**
 * What the worker that launched a bot writes about it before the container starts: the meeting its
 * streams belong to (the ingesters bind every message of those streams to it), who launched it, and
 * the hash of its Redis password (so a credential lost with a Redis restart can be restored as it
 * was, without keeping the password). `endedAt` is set once the bot is gone and its credential
 * revoked; the entry and its streams are removed once every message was ingested.
 */
export const botSessionEntry = z.object({
  meetingId: z.number().int().positive(),
  workerId: z.string().min(1),
  launchedAt: z.number(),
  /** SHA-256 (hex) of the bot's Redis password; absent when bots share the deployment's URL. */
  passwordSha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
  endedAt: z.number().optional(),
});
export type BotSessionEntry = z.infer<typeof botSessionEntry>;

export async function registerBotSession(
  redis: Redis,
  prefix: string,
  sessionId: string,
  entry: BotSessionEntry,
): Promise<void> {
  await redis.hset(botSessionsKey(prefix), sessionId, JSON.stringify(botSessionEntry.parse(entry)));
}

/** Every registered session; an unreadable entry is skipped (it binds nothing). */
export async function listBotSessions(redis: Redis, prefix: string): Promise<Map<string, BotSessionEntry>> {
  const raw = await redis.hgetall(botSessionsKey(prefix));
  const sessions = new Map<string, BotSessionEntry>();
  for (const [sessionId, value] of Object.entries(raw)) {
    const entry = parseEntry(value);
    if (entry) sessions.set(sessionId, entry);
  }
  return sessions;
}

export async function findBotSession(
  redis: Redis,
  prefix: string,
  sessionId: string,
): Promise<BotSessionEntry | undefined> {
  return parseEntry(await redis.hget(botSessionsKey(prefix), sessionId));
}

/** The bot is gone: its streams are read until empty, then removed (see dropBotSession). */
export async function markBotSessionEnded(redis: Redis, prefix: string, sessionId: string): Promise<void> {
  const entry = await findBotSession(redis, prefix, sessionId);
  if (!entry || entry.endedAt !== undefined) return;
  await registerBotSession(redis, prefix, sessionId, { ...entry, endedAt: Date.now() });
}

export async function dropBotSession(redis: Redis, prefix: string, sessionId: string): Promise<void> {
  await redis.hdel(botSessionsKey(prefix), sessionId);
}

function parseEntry(value: string | null | undefined): BotSessionEntry | undefined {
  if (!value) return undefined;
  try {
    const parsed = botSessionEntry.safeParse(JSON.parse(value));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
