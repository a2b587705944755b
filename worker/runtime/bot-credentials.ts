import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { botAliveKey, botCommandsStream, botSessionKeyPrefix } from '../../shared/contract/streams.js';
import type { Config } from '../../shared/infra/config.js';
import { deploymentName, redisDatabaseOf } from './bot-launch-spec.js';

/** What a launch hands its bot: the Redis URL it connects with, and how to restore that credential. */
export interface IssuedCredential {
  redisUrl: string;
  /** SHA-256 (hex) of the password, kept in the session registry; absent without per-bot users. */
  passwordSha256?: string;
}

export interface BotIdentity {
  meetingId: number;
  sessionId: string;
}

/**
 * The Redis credentials of bots. With Redis ACL users (the default), each launch gets a user of its
 * own that reaches only that bot's streams and keys with only the commands the bot sends; it is
 * deleted when the bot is gone, which also disconnects it. With `BOT_REDIS_ACL=off` every bot gets
 * the deployment's URL (for a Redis that forbids ACL changes), and revoking does nothing.
 */
export interface BotCredentials {
  readonly perBot: boolean;
  issue(bot: BotIdentity): Promise<IssuedCredential>;
  /** Creates the user again as it was (same password hash), e.g. after a Redis restart lost it. */
  restore(bot: BotIdentity, passwordSha256: string): Promise<void>;
  /** Deletes the bot's user; a user already gone is not an error. */
  revoke(sessionId: string): Promise<void>;
  /** The sessions of the users this deployment issued and has not revoked yet. */
  issuedSessions(): Promise<string[]>;
}

/**
 * The commands a bot sends, and no other: XADD (its streams), XREAD (its command stream), SET and
 * DEL (its alive key), EXISTS (whether anyone listens to its audio: its `audio:wanted` key), and
 * what ioredis sends on its own: INFO (the ready check, which waits while Redis loads its data after
 * a restart), QUIT, and SELECT when the deployment's database is not 0. AUTH and HELLO need no
 * permission.
 */
export const BOT_COMMANDS = ['xadd', 'xread', 'set', 'del', 'exists', 'info', 'quit', 'ping'] as const;

/** Redis glob patterns treat these as special; ids and prefixes never contain them, but never trust that. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}

/**
 * The ACL SETUSER rules of one bot's user, after `reset` (no password, no keys, no channels, no
 * commands, off): its own streams read-write, its alive key read-write, its meeting's command
 * stream read-only, no pub/sub channel at all, and only the commands above.
 */
export function botAclRules(options: { prefix: string; bot: BotIdentity; database: number }): string[] {
  const { prefix, bot, database } = options;
  return [
    'reset',
    'resetchannels',
    'resetkeys',
    `~${globEscape(botSessionKeyPrefix(prefix, bot.sessionId))}*`,
    `~${globEscape(botAliveKey(prefix, bot.sessionId))}`,
    `%R~${globEscape(botCommandsStream(prefix, bot.meetingId))}`,
    '-@all',
    ...BOT_COMMANDS.map((command) => `+${command}`),
    ...(database === 0 ? [] : ['+select']),
    'on',
  ];
}

/** The URL the bot connects with: the deployment's bot-facing Redis, with the bot's user and password. */
export function botRedisUrl(baseUrl: string, username: string, password: string): string {
  const url = new URL(baseUrl);
  url.username = encodeURIComponent(username);
  url.password = encodeURIComponent(password);
  return url.toString();
}

type CredentialConfig = Pick<Config, 'QUEUE_PREFIX' | 'REDIS_URL' | 'BOT_REDIS_URL' | 'BOT_REDIS_ACL'>;

/**
 * The user names of one deployment's bots. Users are server-wide (not per database), so the name
 * carries the deployment's name, which names the database when it is not 0.
 */
export function botUserPrefix(config: Pick<Config, 'QUEUE_PREFIX' | 'REDIS_URL'>): string {
  return `${deploymentName(config)}:bot:`;
}

export function createBotCredentials(redis: Redis, config: CredentialConfig): BotCredentials {
  const botFacingUrl = config.BOT_REDIS_URL ?? config.REDIS_URL;
  if (config.BOT_REDIS_ACL === 'off') {
    return {
      perBot: false,
      issue: async () => ({ redisUrl: botFacingUrl }),
      restore: async () => undefined,
      revoke: async () => undefined,
      issuedSessions: async () => [],
    };
  }
  const userPrefix = botUserPrefix(config);
  const database = redisDatabaseOf(config.REDIS_URL);
  const setUser = async (bot: BotIdentity, secret: string) => {
    const rules = botAclRules({ prefix: config.QUEUE_PREFIX, bot, database });
    await redis.call('ACL', 'SETUSER', `${userPrefix}${bot.sessionId}`, ...rules, secret);
  };
  return {
    perBot: true,
    async issue(bot) {
      const password = randomBytes(32).toString('base64url');
      const passwordSha256 = createHash('sha256').update(password).digest('hex');
      await setUser(bot, `>${password}`);
      return {
        redisUrl: botRedisUrl(botFacingUrl, `${userPrefix}${bot.sessionId}`, password),
        passwordSha256,
      };
    },
    async restore(bot, passwordSha256) {
      await setUser(bot, `#${passwordSha256}`);
    },
    async revoke(sessionId) {
      // Deleting a user also closes every connection it authenticated.
      await redis.call('ACL', 'DELUSER', `${userPrefix}${sessionId}`);
    },
    async issuedSessions() {
      const users = (await redis.call('ACL', 'USERS')) as string[];
      return users.filter((user) => user.startsWith(userPrefix)).map((user) => user.slice(userPrefix.length));
    },
  };
}

/**
 * Fails at start-up, with what to do, when per-bot users are on but this Redis forbids ACL changes
 * (a managed Redis, or a user without the `@admin` commands): better than every launch failing.
 */
export async function checkAclAllowed(redis: Redis, config: CredentialConfig): Promise<void> {
  if (config.BOT_REDIS_ACL === 'off') return;
  const probe = `${botUserPrefix(config)}probe-${randomBytes(6).toString('hex')}`;
  try {
    await redis.call('ACL', 'SETUSER', probe, 'reset');
    await redis.call('ACL', 'DELUSER', probe);
  } catch (error) {
    throw new Error(
      `BOT_REDIS_ACL=on needs a Redis user allowed to run ACL SETUSER and ACL DELUSER (${(error as Error).message}); ` +
        'give it to the workers, or set BOT_REDIS_ACL=off to give every bot the deployment Redis URL (docs/settings.md)',
    );
  }
}
