import { BOT_ACCOUNT_KEY_MISSING } from '../accounts/bot-account-sessions.js';
import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { lockUserForUpdate } from '../accounts/users-store.js';
import type { BotSettingsChange } from '../contract/commands.js';
import type { JobMeetingRef, LaunchBotPayload } from '../contract/jobs.js';
import { type TranscriptionEngine, unsupportedLanguage } from '../contract/languages.js';
import type { TranscriptionTask } from '../contract/meeting-status.js';
import { ScheduleReasons } from '../contract/schedule.js';
import {
  checkMeetingUrl,
  defaultMeetingUrl,
  isValidNativeMeetingId,
  type Platform,
} from '../contract/platforms.js';
import {
  BadRequestError,
  ConflictError,
  NotFoundError,
  ServiceUnavailableError,
  SpecErrors,
  TooManyRequestsError,
  UnauthorizedError,
} from '../infra/errors.js';
import type { Knex } from '../infra/knex.js';
import type { Logger } from '../infra/logger.js';
import type { AnnounceChanges } from '../meetings/changes.js';
import type { MeetingEvents } from '../meetings/events.js';
import {
  countLiveMeetings,
  countWaitingScheduled,
  findLiveMeeting,
  findMeetingByScheduleKey,
  insertMeeting,
  listLiveMeetings,
  lockWaitingScheduled,
  type MeetingRecord,
  moveScheduledJoin,
  releaseScheduleKey,
  updateBotSettings,
} from '../meetings/store.js';
import { recordStatusChange, transitionMeeting } from '../meetings/transitions.js';
import type { WebhookAddressPolicy } from '../webhooks/address-policy.js';
import { assertWebhookUrlAllowed } from '../webhooks/service.js';
import { userWebhookSettings } from '../webhooks/settings-store.js';
import type { BotCommands } from './command-channel.js';
import type { BotJobs } from './jobs.js';
import {
  checkJoinAt,
  DEFAULT_MAX_SCHEDULED_BOTS_PER_USER,
  type ScheduleSettings,
  ScheduledBotsFullError,
} from './schedule.js';

export interface BotServiceDeps {
  db: Knex;
  jobs: BotJobs;
  commands: BotCommands;
  log: Logger;
  defaultBotName: string;
  /** Whether a bot records when the request does not say (RECORDING_ENABLED_DEFAULT). */
  recordingEnabledDefault: boolean;
  extraMeetingOrigins: readonly string[];
  /** Tells live streams and webhook dispatchers a meeting changed; must not throw. */
  announce: AnnounceChanges;
  /** Hears of every status change, inside its transaction (the webhook outbox: api/app.ts). */
  events: MeetingEvents;
  webhookPolicy: WebhookAddressPolicy;
  /** The engine bots transcribe with (TRANSCRIPTION_ENGINE): a language it can't take is refused here. */
  transcriptionEngine: TranscriptionEngine;
  /** How far ahead `join_at` may be, and how far behind it is still taken as now. */
  schedule: ScheduleSettings;
  /** Whether bots may sign in with bot accounts (BOT_ACCOUNT_KEY is set); `authenticated` is 503 otherwise. */
  signedInBots?: boolean | undefined;
}

function assertLanguageSupported(engine: TranscriptionEngine, language: string | undefined): void {
  if (language === undefined) return;
  const problem = unsupportedLanguage(engine, language);
  if (problem) throw new BadRequestError(problem);
}

/** A request to send a bot (POST /bots), as the API validated it. */
export interface BotRequest {
  platform: Platform;
  nativeMeetingId: string;
  passcode?: string | undefined;
  meetingUrl?: string | undefined;
  botName?: string | undefined;
  language?: string | undefined;
  task?: TranscriptionTask | undefined;
  /** Record the meeting's audio; the operator's default when not given. */
  recordingEnabled?: boolean | undefined;
  /** The bot's own webhook endpoint, instead of the user's. */
  webhook?: { url: string; secret?: string | undefined; partialSegments?: boolean | undefined } | undefined;
  /** A scheduled bot: when it joins (in the future, within the horizon); omitted: at once. */
  joinAt?: Date | undefined;
  /** The bot signs in with one of the operator's bot accounts of the platform (docs/api.md, "Signed-in bots"). */
  authenticated?: boolean | undefined;
  /**
   * The scheduler's name for the occurrence (a calendar feed's event and start), unique per user:
   * scheduling it again returns the meeting already made for it.
   */
  scheduleKey?: string | undefined;
  /** Who scheduled it, as the meeting's history records it (default: the API, a user's request). */
  scheduledBy?: SchedulerNote | undefined;
}

/** A scheduler's name and words for a change it makes, in the meeting's history (`source`, `detail`). */
export interface SchedulerNote {
  source: string;
  detail: string;
}

/** The request's platform rules, in the order a caller would fix them. Pure: no IO. */
export function resolveCreateBot(
  request: BotRequest,
  options: Pick<BotServiceDeps, 'defaultBotName' | 'extraMeetingOrigins'>,
): {
  platform: Platform;
  nativeMeetingId: string;
  meetingUrl: string;
  passcode: string | null;
  botName: string;
} {
  const { platform, nativeMeetingId } = request;
  if (!isValidNativeMeetingId(platform, nativeMeetingId))
    throw new BadRequestError(SpecErrors.invalidMeetingId);
  if (platform === 'teams' && !request.passcode)
    throw new BadRequestError('passcode: is required for Teams meetings');
  let meetingUrl = defaultMeetingUrl(platform, nativeMeetingId, request.passcode);
  if (request.meetingUrl !== undefined) {
    const check = checkMeetingUrl(
      platform,
      nativeMeetingId,
      request.meetingUrl,
      options.extraMeetingOrigins,
      request.passcode,
    );
    if (!check.ok) throw new BadRequestError(check.reason);
    meetingUrl = check.url;
  }
  return {
    platform,
    nativeMeetingId,
    meetingUrl,
    passcode: request.passcode ?? null,
    botName: request.botName ?? options.defaultBotName,
  };
}

/**
 * Creates the meeting and queues its launch. The duplicate check, the concurrent-bot limit (or, for
 * a scheduled bot, the limit on waiting ones) and the insert run in one transaction under a lock on
 * the user's row, so parallel creates never overshoot.
 */
export async function createBot(
  deps: BotServiceDeps,
  auth: AuthenticatedKey,
  request: BotRequest,
): Promise<MeetingRecord> {
  return (await createOrFindBot(deps, auth, request)).meeting;
}

/** createBot; with a `scheduleKey` already used, the meeting made for it (found under the same lock). */
async function createOrFindBot(
  deps: BotServiceDeps,
  auth: AuthenticatedKey,
  request: BotRequest,
): Promise<{ meeting: MeetingRecord; created: boolean }> {
  const resolved = resolveCreateBot(request, deps);
  assertLanguageSupported(deps.transcriptionEngine, request.language);
  if (request.authenticated && !deps.signedInBots) throw new ServiceUnavailableError(BOT_ACCOUNT_KEY_MISSING);
  const joinAt = request.joinAt && checkJoinAt(request.joinAt, deps.schedule);
  const webhookUrl =
    request.webhook === undefined
      ? undefined
      : await assertWebhookUrlAllowed('webhook_url', request.webhook.url, deps.webhookPolicy);
  const outcome = await deps.db
    .transaction(async (trx) => {
      const user = await lockUserForUpdate(trx, auth.user.id);
      if (!user) throw new UnauthorizedError(SpecErrors.unauthorized);
      if (request.scheduleKey !== undefined) {
        const existing = await findMeetingByScheduleKey(trx, user.id, request.scheduleKey);
        if (existing) return { meeting: existing, created: false };
      }
      if (await findLiveMeeting(trx, user.id, resolved.platform, resolved.nativeMeetingId)) {
        throw new ConflictError('A bot is already running or starting for this meeting');
      }
      // A scheduled bot takes no slot while it waits: the limit is checked when its time comes.
      if (!joinAt && (await countLiveMeetings(trx, user.id)) >= user.maxConcurrentBots) {
        throw new TooManyRequestsError(SpecErrors.tooManyBots);
      }
      // Waiting bots cost a delayed job in Redis and a row each: one user may keep only so many.
      const maxWaiting = deps.schedule.maxWaitingPerUser ?? DEFAULT_MAX_SCHEDULED_BOTS_PER_USER;
      if (joinAt && (await countWaitingScheduled(trx, user.id)) >= maxWaiting) {
        throw new ScheduledBotsFullError(maxWaiting);
      }
      const created = await insertMeeting(trx, {
        userId: user.id,
        platform: resolved.platform,
        nativeMeetingId: resolved.nativeMeetingId,
        meetingUrl: resolved.meetingUrl,
        passcode: resolved.passcode,
        botName: resolved.botName,
        language: request.language ?? null,
        task: request.task ?? 'transcribe',
        recordingEnabled: request.recordingEnabled ?? deps.recordingEnabledDefault,
        webhook:
          webhookUrl === undefined
            ? undefined
            : {
                url: webhookUrl,
                secret: request.webhook?.secret ?? null,
                partialSegments: request.webhook?.partialSegments ?? false,
              },
        joinAt,
        scheduleKey: request.scheduleKey,
        authenticated: request.authenticated ?? false,
      });
      // Without a secret of its own the bot's deliveries are signed with the user's: make sure one exists.
      if (webhookUrl && !request.webhook?.secret) await userWebhookSettings(trx, user.id);
      await recordStatusChange(trx, deps.events, {
        meetingId: created.id,
        from: null,
        to: 'requested',
        source: request.scheduledBy?.source ?? 'api',
        reason: joinAt ? ScheduleReasons.scheduled : 'bot requested',
        detail: joinAt ? withNote(`join_at ${joinAt.toISOString()}`, request.scheduledBy) : null,
      });
      return { meeting: created, created: true };
    })
    .catch((error: unknown) => {
      // The lock makes this unreachable through the API; the unique index still guards other writers.
      if (isUniqueViolation(error, 'meetings_one_live_bot_per_meeting')) {
        throw new ConflictError('A bot is already running or starting for this meeting');
      }
      throw error;
    });

  if (!outcome.created) return outcome;
  const { meeting } = outcome;
  await deps.announce([meeting.id]);
  try {
    await deps.jobs.launch(launchPayload(meeting));
  } catch (error) {
    // Nothing will ever launch this bot: close the meeting honestly rather than leave it `requested`.
    deps.log.error({ err: error, meetingId: meeting.id }, 'could not queue the bot launch');
    await transitionMeeting(deps.db, deps.events, meeting.id, {
      to: 'failed',
      source: 'api',
      reason: 'launch_not_queued',
      detail: 'the job queue (Redis) was unavailable',
    });
    await deps.announce([meeting.id]);
    throw new ServiceUnavailableError('Job queue unavailable; the bot was not started. Try again shortly.');
  }
  return outcome;
}

/**
 * What a scheduler (a calendar feed) calls for one occurrence: schedules its bot, or returns the
 * meeting already scheduled for `scheduleKey` (in any status), so polling the same occurrence again
 * never sends a second bot.
 */
export async function scheduleBot(
  deps: BotServiceDeps,
  auth: AuthenticatedKey,
  request: BotRequest & { joinAt: Date; scheduleKey: string },
): Promise<{ meeting: MeetingRecord; created: boolean }> {
  const existing = await findMeetingByScheduleKey(deps.db, auth.user.id, request.scheduleKey);
  if (existing) return { meeting: existing, created: false };
  return createOrFindBot(deps, auth, request);
}

/**
 * Moves a scheduled bot that has not launched yet to `joinAt` (same checks as POST /bots) and
 * queues its launch for then; the job for the old time finds the meeting moved and does nothing.
 */
export async function moveScheduledBot(
  deps: BotServiceDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  requestedJoinAt: Date,
): Promise<MeetingRecord> {
  const joinAt = checkJoinAt(requestedJoinAt, deps.schedule);
  const live = await findLiveMeeting(deps.db, auth.user.id, platform, nativeMeetingId);
  if (!live) throw new NotFoundError(SpecErrors.botNotFound);
  const notWaiting = 'The bot is not scheduled or has already launched; only a waiting bot can be moved';
  if (!isWaitingScheduled(live)) throw new ConflictError(notWaiting);
  const moved = await moveWaitingBot(deps, live.id, joinAt, { source: 'api', detail: '' });
  if (!moved) throw new ConflictError(notWaiting);
  return moved;
}

/**
 * Moves the scheduled bot of `meetingId` to `requestedJoinAt` if it is still waiting (undefined when
 * it launched or ended meanwhile: then nothing changes), and queues its launch for then. A time the
 * schedule rules refuse (past, beyond the horizon) throws BadRequestError.
 */
export async function moveWaitingBot(
  deps: BotServiceDeps,
  meetingId: number,
  requestedJoinAt: Date,
  note: SchedulerNote,
): Promise<MeetingRecord | undefined> {
  const joinAt = checkJoinAt(requestedJoinAt, deps.schedule);
  const moved = await deps.db.transaction(async (trx) => {
    const updated = await moveScheduledJoin(trx, meetingId, joinAt);
    if (!updated) return undefined;
    await recordStatusChange(trx, deps.events, {
      meetingId: updated.id,
      from: 'requested',
      to: 'requested',
      source: note.source,
      reason: ScheduleReasons.moved,
      detail: withNote(`join_at ${joinAt.toISOString()}`, note),
    });
    return updated;
  });
  if (!moved) return undefined;
  await deps.announce([moved.id]);
  try {
    await deps.jobs.launch(launchPayload(moved));
  } catch (error) {
    // The reconciler queues a due launch nobody claimed (requeueLaunches), with the new time.
    deps.log.error(
      { err: error, meetingId: moved.id },
      'could not queue the moved launch; the reconciler will',
    );
  }
  return moved;
}

/**
 * Cancels the scheduled bot of `meetingId` if it is still waiting (the meeting becomes `completed`,
 * reason `schedule_cancelled`, and no container is ever started), and frees its schedule key so its
 * scheduler may schedule that occurrence again should it come back. Undefined when the bot launched
 * or ended meanwhile: a launched bot is never touched. The row lock orders this against a launch's
 * claim, so the two never both happen.
 */
export async function cancelWaitingBot(
  deps: Pick<BotServiceDeps, 'db' | 'events' | 'announce'>,
  meetingId: number,
  note: SchedulerNote,
): Promise<MeetingRecord | undefined> {
  const cancelled = await deps.db.transaction(async (trx) => {
    if (!(await lockWaitingScheduled(trx, meetingId))) return undefined;
    const result = await transitionMeeting(trx, deps.events, meetingId, {
      to: 'completed',
      source: note.source,
      reason: ScheduleReasons.cancelled,
      detail: note.detail || null,
    });
    if (!result) return undefined;
    await releaseScheduleKey(trx, meetingId);
    return result.meeting;
  });
  if (cancelled) await deps.announce([cancelled.id]);
  return cancelled;
}

/** The history's detail: the change, then who asked for it when a scheduler did. */
function withNote(detail: string, note: SchedulerNote | undefined): string {
  return note?.detail ? `${detail}; ${note.detail}` : detail;
}

/**
 * Ends the meeting at once (completed, end time set, container id cleared) and asks the worker to
 * make the bot leave. If the stop job can't be queued, the worker's reconciler still removes the
 * container of a completed meeting.
 */
export async function stopBot(
  deps: BotServiceDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
): Promise<MeetingRecord> {
  const live = await findLiveMeeting(deps.db, auth.user.id, platform, nativeMeetingId);
  if (!live) throw new NotFoundError(SpecErrors.botNotFound);
  const waiting = isWaitingScheduled(live);
  const result = await transitionMeeting(deps.db, deps.events, live.id, {
    to: 'completed',
    source: 'api',
    reason: waiting ? ScheduleReasons.cancelled : 'stopped',
  });
  if (!result) throw new NotFoundError(SpecErrors.botNotFound);
  await deps.announce([live.id]);
  // A scheduled bot cancelled before its time has no container; its launch job finds it completed.
  if (waiting) return result.meeting;
  try {
    await deps.jobs.stop({
      ...jobMeetingRef(live),
      botContainerId: live.botContainerId,
      requestedAt: new Date().toISOString(),
    });
  } catch (error) {
    deps.log.error(
      { err: error, meetingId: live.id },
      'could not queue the bot stop; the reconciler will remove the container',
    );
  }
  return result.meeting;
}

/** Stores the new settings of an active bot and sends them to it through its command stream. */
export async function reconfigureBot(
  deps: BotServiceDeps,
  auth: AuthenticatedKey,
  platform: Platform,
  nativeMeetingId: string,
  change: BotSettingsChange,
): Promise<MeetingRecord> {
  const live = await findLiveMeeting(deps.db, auth.user.id, platform, nativeMeetingId);
  if (live?.status !== 'active') throw new NotFoundError(SpecErrors.botNotFound);
  assertLanguageSupported(deps.transcriptionEngine, change.language);
  const updated = await updateBotSettings(deps.db, live.id, 'active', change);
  if (!updated) throw new NotFoundError(SpecErrors.botNotFound);
  try {
    await deps.commands.send(updated.id, {
      type: 'reconfigure',
      ...change,
      issuedAt: new Date().toISOString(),
    });
  } catch (error) {
    deps.log.error({ err: error, meetingId: updated.id }, 'could not send the reconfiguration to the bot');
    throw new ServiceUnavailableError(
      'Redis unavailable; the new configuration was saved but not sent to the bot. Try again shortly.',
    );
  }
  return updated;
}

export async function runningBots(
  deps: Pick<BotServiceDeps, 'db'>,
  auth: AuthenticatedKey,
): Promise<MeetingRecord[]> {
  return listLiveMeetings(deps.db, auth.user.id);
}

/** A scheduled bot still waiting for its time (no launch has claimed it). */
function isWaitingScheduled(meeting: MeetingRecord): boolean {
  return meeting.status === 'requested' && meeting.joinAt !== null && meeting.launchSessionId === null;
}

/** The launch job of a meeting: delayed until its `join_at` when it has one. */
function launchPayload(meeting: MeetingRecord): LaunchBotPayload {
  return {
    ...jobMeetingRef(meeting),
    ...(meeting.joinAt ? { joinAt: meeting.joinAt.getTime() } : {}),
  };
}

/** How a job names its meeting. */
function jobMeetingRef(meeting: MeetingRecord): JobMeetingRef {
  return {
    meetingId: meeting.id,
    userId: meeting.userId,
    platform: meeting.platform,
    nativeMeetingId: meeting.nativeMeetingId,
  };
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: unknown; constraint?: unknown };
  return pgError?.code === '23505' && pgError.constraint === constraint;
}
