import { z } from 'zod';

/**
 * Redis keys shared by bots and workers. Each bot appends to streams of its own, named by its launch
 * session (`<prefix>:bot:<sessionId>:<kind>`): its credential reaches those and nothing else, and the
 * worker takes the meeting a message belongs to from the stream it came through. Each meeting has its
 * own durable command stream the bot reads.
 */
export const BOT_STREAM_KINDS = [
  'events',
  'segments',
  'health',
  'recording',
  'chat',
  'participants',
] as const;
export const BOT_STREAM_LAYOUTS = ['own', 'shared'] as const;
export type BotStreamLayout = (typeof BOT_STREAM_LAYOUTS)[number];
export type BotStreamKind = (typeof BOT_STREAM_KINDS)[number];

/** Every key of one bot's own streams starts with this (its credential's key pattern). */
export function botSessionKeyPrefix(prefix: string, sessionId: string): string {
  return `${prefix}:bot:${sessionId}:`;
}

/** One of a bot's own streams. */
export function botSessionStream(prefix: string, sessionId: string, kind: BotStreamKind): string {
  return `${botSessionKeyPrefix(prefix, sessionId)}${kind}`;
}

/** The legacy shared stream of a kind (see botEventsStream). */
export function sharedBotStream(prefix: string, kind: BotStreamKind): string {
  return `${prefix}:${SHARED_STREAM_NAMES[kind]}`;
}

const SHARED_STREAM_NAMES: Record<BotStreamKind, string> = {
  events: 'bot-events',
  segments: 'bot-segments',
  health: 'bot-health',
  recording: 'bot-recording',
  chat: 'bot-chat',
  participants: 'bot-participants',
};

/**
 * The registry of launched bots (a hash: session id → the meeting it belongs to, see
 * shared/bots/session-registry.ts): the ingesters read the streams of the sessions it lists.
 */
export function botSessionsKey(prefix: string): string {
  return `${prefix}:bot-sessions`;
}

/**
 * The streams every bot shared before bots had streams of their own (`legacy`): bots launched by an
 * older worker still append there during a rolling upgrade, so the ingesters keep reading them.
 * Nothing launched now writes them, and a bot's own credential cannot.
 */
export function botEventsStream(prefix: string): string {
  return sharedBotStream(prefix, 'events');
}

export function botSegmentsStream(prefix: string): string {
  return sharedBotStream(prefix, 'segments');
}

/** How each bot's transcription keeps up (lagging, caught up, audio dropped). */
export function botHealthStream(prefix: string): string {
  return sharedBotStream(prefix, 'health');
}

/** The bots' recordings, chunk by chunk (entries are deleted once stored: they are the bulk). */
export function botRecordingStream(prefix: string): string {
  return sharedBotStream(prefix, 'recording');
}

/** The chat messages bots read in their meetings. */
export function botChatStream(prefix: string): string {
  return sharedBotStream(prefix, 'chat');
}

/** Participants joining, leaving, starting and stopping to speak, as bots see them. */
export function botParticipantsStream(prefix: string): string {
  return sharedBotStream(prefix, 'participants');
}

/** Messages the ingesters could never apply, with the reason, for an operator to look at. */
export function botDeadLetterStream(prefix: string): string {
  return `${prefix}:bot-dead-letter`;
}

export function botCommandsStream(prefix: string, meetingId: number): string {
  return `${prefix}:bot-commands:${meetingId}`;
}

/**
 * The meetings that have a command stream (a sorted set: meeting id by its latest command's time),
 * so the worker finds the streams of ended meetings to delete without scanning the keyspace.
 */
export function botCommandStreamsKey(prefix: string): string {
  return `${prefix}:bot-command-streams`;
}

/**
 * Set by a running bot and refreshed while it runs (it expires on its own when the bot or its host
 * is gone): a lost worker's meeting is relaunched only when its bot is not alive any more.
 */
export function botAliveKey(prefix: string, sessionId: string): string {
  return `${prefix}:bot-alive:${sessionId}`;
}

/**
 * What the alive key holds: when it was refreshed, how far the bot's transcription is behind and
 * whether the bot is still settling in (its browser starting, the page loading and joining, and in
 * the call until its video measures are done: the bot's busiest seconds), so the worker running the
 * bot can hold back new launches while its bots lag or settle. An older bot says nothing of
 * settling: it counts as settled.
 */
export const botAliveState = z.object({
  at: z.number(),
  lagSeconds: z.number().min(0),
  lagging: z.boolean(),
  settling: z.boolean().optional(),
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
