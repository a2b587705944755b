import { z } from 'zod';

/**
 * Redis keys shared by bots and workers. Bots append to the two shared streams (one consumer group
 * of ingesters reads each); each meeting has its own durable command stream the bot reads.
 */
export function botEventsStream(prefix: string): string {
  return `${prefix}:bot-events`;
}

export function botSegmentsStream(prefix: string): string {
  return `${prefix}:bot-segments`;
}

/** How each bot's transcription keeps up (lagging, caught up, audio dropped). */
export function botHealthStream(prefix: string): string {
  return `${prefix}:bot-health`;
}

/** The bots' recordings, chunk by chunk (entries are deleted once stored: they are the bulk). */
export function botRecordingStream(prefix: string): string {
  return `${prefix}:bot-recording`;
}

/** Messages the ingesters could never apply, with the reason, for an operator to look at. */
export function botDeadLetterStream(prefix: string): string {
  return `${prefix}:bot-dead-letter`;
}

export function botCommandsStream(prefix: string, meetingId: number): string {
  return `${prefix}:bot-commands:${meetingId}`;
}

/**
 * Set by a running bot and refreshed while it runs (it expires on its own when the bot or its host
 * is gone): a lost worker's meeting is relaunched only when its bot is not alive any more.
 */
export function botAliveKey(prefix: string, sessionId: string): string {
  return `${prefix}:bot-alive:${sessionId}`;
}

/**
 * What the alive key holds: when it was refreshed and how far the bot's transcription is behind,
 * so the worker running the bot can hold back new launches while its bots lag.
 */
export const botAliveState = z.object({
  at: z.number(),
  lagSeconds: z.number().min(0),
  lagging: z.boolean(),
});
export type BotAliveState = z.infer<typeof botAliveState>;

/** The alive key's value, or null when it is missing or unreadable. */
export function parseBotAliveState(raw: string | null): BotAliveState | null {
  if (raw === null) return null;
  try {
    const parsed = botAliveState.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** How often a bot refreshes its alive key, and how long the key outlives a refresh. */
export const BOT_ALIVE_REFRESH_MS = 2000;
export const BOT_ALIVE_TTL_MS = 8000;
