import type { Redis } from 'ioredis';
import {
  type BotSessionEntry,
  dropBotSession,
  listBotSessions,
  markBotSessionEnded,
  registerBotSession,
} from '../../shared/bots/session-registry.js';
import { botAudioStream } from '../../shared/contract/audio-stream.js';
import { isTerminal } from '../../shared/contract/meeting-status.js';
import { BOT_STREAM_KINDS, botAliveKey, botSessionStream } from '../../shared/contract/streams.js';
import type { Config } from '../../shared/infra/config.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { INGEST_GROUP } from '../ingest/ingester.js';
import type { BotCredentials, BotIdentity } from '../runtime/bot-credentials.js';

/** What keeping bots' sessions and credentials needs; the sweep also reads meetings (`db`). */
export interface BotSessionDeps {
  config: Pick<Config, 'WORKER_ID' | 'QUEUE_PREFIX'>;
  db: Knex;
  /** A non-blocking connection: the session registry and the bots' streams. */
  redis: Redis;
  /** Each bot's own Redis credential, issued at launch and revoked when the bot is gone. */
  credentials: BotCredentials;
  log: Logger;
}

/** Opening and closing one bot's session: no meeting is read. */
export type SessionOpenDeps = Omit<BotSessionDeps, 'db'>;

/** A launch this recent may still be starting its container (the reconciler's own grace, too). */
export const LAUNCH_IN_PROGRESS_MS = 120_000;
/**
 * An ended bot's streams are kept at least this long (audits, tests), then removed once every
 * message in them was ingested; until then the ingesters keep reading them.
 */
export const ENDED_STREAMS_KEPT_MS = 10 * 60_000;

/**
 * Before a bot's container starts: its session is registered (so the ingesters read its streams,
 * bound to its meeting), then its credential is issued. Returns the Redis URL the bot gets.
 * Registered first, so a credential never exists without its entry (the sweep revokes those).
 */
export async function openBotSession(deps: SessionOpenDeps, bot: BotIdentity): Promise<string> {
  const entry: BotSessionEntry = {
    meetingId: bot.meetingId,
    workerId: deps.config.WORKER_ID,
    launchedAt: Date.now(),
  };
  await registerBotSession(deps.redis, deps.config.QUEUE_PREFIX, bot.sessionId, entry);
  const issued = await deps.credentials.issue(bot);
  if (issued.passwordSha256) {
    await registerBotSession(deps.redis, deps.config.QUEUE_PREFIX, bot.sessionId, {
      ...entry,
      passwordSha256: issued.passwordSha256,
    });
  }
  return issued.redisUrl;
}

/** The bot is gone (ended, crashed, never started, or lost with its host): its credential goes too. */
export async function closeBotSession(deps: SessionOpenDeps, sessionId: string): Promise<void> {
  await deps.credentials.revoke(sessionId);
  await markBotSessionEnded(deps.redis, deps.config.QUEUE_PREFIX, sessionId);
  deps.log.info({ sessionId }, 'bot credential revoked');
}

export interface SessionSweepReport {
  credentialsRevoked: number;
  credentialsRestored: number;
  sessionsDropped: number;
}

/**
 * Keeps credentials and sessions in step with the bots that exist, whoever launched them:
 * - a credential with no live session behind it is revoked;
 * - a session of this worker whose container is gone from this engine is closed;
 * - a session of another worker is closed once its meeting no longer runs it (ended, or relaunched
 *   after a lost host) and the bot stopped refreshing its alive key;
 * - a live session whose credential vanished (Redis restarted without it) gets it back, same password;
 * - an ended session whose streams were all ingested is removed, streams and all, after a while.
 */
export async function sweepBotSessions(
  deps: BotSessionDeps,
  sessionsOnThisEngine: ReadonlySet<string>,
): Promise<SessionSweepReport> {
  const report: SessionSweepReport = { credentialsRevoked: 0, credentialsRestored: 0, sessionsDropped: 0 };
  const prefix = deps.config.QUEUE_PREFIX;
  // Credentials first: a launch registers its session before it issues the credential, so every
  // credential listed here has its entry in the list read after.
  const issued = new Set(await deps.credentials.issuedSessions());
  const sessions = await listBotSessions(deps.redis, prefix);
  for (const sessionId of issued) {
    const entry = sessions.get(sessionId);
    if (entry && entry.endedAt === undefined) continue;
    await deps.credentials.revoke(sessionId);
    report.credentialsRevoked += 1;
  }
  const now = Date.now();
  for (const [sessionId, entry] of sessions) {
    if (entry.endedAt !== undefined) {
      if (
        now - entry.endedAt >= ENDED_STREAMS_KEPT_MS &&
        (await allIngested(deps.redis, prefix, sessionId))
      ) {
        await dropBotSession(deps.redis, prefix, sessionId);
        await deps.redis.del(
          ...BOT_STREAM_KINDS.map((kind) => botSessionStream(prefix, sessionId, kind)),
          // Live audio only (nobody ingests it), trimmed to a few seconds while the bot ran.
          botAudioStream(prefix, sessionId),
        );
        report.sessionsDropped += 1;
      }
      continue;
    }
    if (await botGone(deps, sessionId, entry, sessionsOnThisEngine, now)) {
      await closeBotSession(deps, sessionId);
      if (issued.has(sessionId)) report.credentialsRevoked += 1;
      continue;
    }
    if (await restoreIfLost(deps, sessionId, entry, issued)) report.credentialsRestored += 1;
  }
  return report;
}

/**
 * Creates again, with the same password, the users of live bots that Redis lost (a restart without
 * an ACL file): the worker calls it as soon as its Redis connection is back, the sweep every interval.
 */
export async function restoreLostCredentials(deps: BotSessionDeps): Promise<number> {
  if (!deps.credentials.perBot) return 0;
  const issued = new Set(await deps.credentials.issuedSessions());
  let restored = 0;
  for (const [sessionId, entry] of await listBotSessions(deps.redis, deps.config.QUEUE_PREFIX)) {
    if (entry.endedAt === undefined && (await restoreIfLost(deps, sessionId, entry, issued))) restored += 1;
  }
  return restored;
}

async function restoreIfLost(
  deps: BotSessionDeps,
  sessionId: string,
  entry: BotSessionEntry,
  issued: ReadonlySet<string>,
): Promise<boolean> {
  if (!deps.credentials.perBot || !entry.passwordSha256 || issued.has(sessionId)) return false;
  await deps.credentials.restore({ meetingId: entry.meetingId, sessionId }, entry.passwordSha256);
  deps.log.warn({ sessionId, meetingId: entry.meetingId }, 'restored a bot credential Redis had lost');
  return true;
}

async function botGone(
  deps: BotSessionDeps,
  sessionId: string,
  entry: BotSessionEntry,
  sessionsOnThisEngine: ReadonlySet<string>,
  now: number,
): Promise<boolean> {
  // This worker's own launch may still be creating its container.
  if (entry.workerId === deps.config.WORKER_ID) {
    return now - entry.launchedAt >= LAUNCH_IN_PROGRESS_MS && !sessionsOnThisEngine.has(sessionId);
  }
  // Another worker's launch in progress is its meeting's launch session: not gone.
  const meeting = await findMeetingById(deps.db, entry.meetingId);
  const stillItsBot = meeting && !isTerminal(meeting.status) && meeting.launchSessionId === sessionId;
  if (stillItsBot) return false;
  return (await deps.redis.exists(botAliveKey(deps.config.QUEUE_PREFIX, sessionId))) === 0;
}

/** Every stream of the session was read and acknowledged by the ingesters (or never existed). */
async function allIngested(redis: Redis, prefix: string, sessionId: string): Promise<boolean> {
  for (const kind of BOT_STREAM_KINDS) {
    const stream = botSessionStream(prefix, sessionId, kind);
    if ((await redis.exists(stream)) === 0) continue;
    const info = toRecord((await redis.call('XINFO', 'STREAM', stream)) as unknown[]);
    const groups = ((await redis.call('XINFO', 'GROUPS', stream)) as unknown[][]).map(toRecord);
    const group = groups.find((candidate) => candidate.name === INGEST_GROUP);
    if (!group) {
      if (Number(info.length) > 0) return false;
      continue;
    }
    if (Number(group.pending) > 0) return false;
    if (compareIds(String(group['last-delivered-id']), String(info['last-generated-id'])) < 0) return false;
  }
  return true;
}

function toRecord(flat: unknown[]): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (let index = 0; index + 1 < flat.length; index += 2) record[String(flat[index])] = flat[index + 1];
  return record;
}

function compareIds(a: string, b: string): number {
  const [aMs = 0, aSeq = 0] = a.split('-').map(Number);
  const [bMs = 0, bSeq = 0] = b.split('-').map(Number);
  return aMs === bMs ? aSeq - bSeq : aMs - bMs;
}
