import { BOT_ACCOUNT_KEY_MISSING } from '../accounts/bot-account-sessions.js';
import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { lockUserForUpdate } from '../accounts/users-store.js';
import { type TranscriptionEngine, unsupportedLanguage } from '../contract/languages.js';
import type { TranscriptionTask } from '../contract/meeting-status.js';
import {
  checkMeetingUrl,
  defaultMeetingUrl,
  isValidNativeMeetingId,
  type Platform,
} from '../contract/platforms.js';
import { ScheduleReasons } from '../contract/schedule.js';
import {
  BadRequestError,
  ConflictError,
  ServiceUnavailableError,
  SpecErrors,
  TooManyRequestsError,
  UnauthorizedError,
} from '../infra/errors.js';
import type { Config } from '../infra/config.js';
import type { Knex } from '../infra/knex.js';
import type { Logger } from '../infra/logger.js';
import type { OutboundAddressPolicy } from '../infra/outbound-address-policy.js';
import type { AnnounceChanges } from '../meetings/changes.js';
import type { MeetingEvents } from '../meetings/events.js';
import { countLiveMeetings, findLiveMeeting } from '../meetings/live-store.js';
import { countWaitingScheduled, findMeetingByScheduleKey } from '../meetings/schedule-store.js';
import { insertMeeting, type MeetingRecord } from '../meetings/store.js';
import { recordStatusChange, transitionMeeting } from '../meetings/transitions.js';
import { assertWebhookUrlAllowed } from '../webhooks/service.js';
import { userWebhookSettings } from '../webhooks/settings-store.js';
import type { BotCommands } from './command-channel.js';
import { type BotJobs, launchPayload } from './jobs.js';
import {
  checkJoinAt,
  DEFAULT_MAX_SCHEDULED_BOTS_PER_USER,
  ScheduledBotsFullError,
  type SchedulerNote,
  type ScheduleSettings,
  withNote,
} from './schedule.js';

// Sending a bot (POST /bots, and a scheduler's bot through scheduled-bots.ts): the request's rules,
// the limits, the meeting's row and its launch job. Stopping and reconfiguring bots in flight:
// running-bots.ts; moving and cancelling waiting ones: scheduled-bots.ts.

/** What the bots' operations need (the API's and, for calendar feeds, the worker's). */
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
  webhookPolicy: OutboundAddressPolicy;
  /** The engine bots transcribe with (TRANSCRIPTION_ENGINE): a language it can't take is refused here. */
  transcriptionEngine: TranscriptionEngine;
  /** How far ahead `join_at` may be, and how far behind it is still taken as now. */
  schedule: ScheduleSettings;
  /** Whether bots may sign in with bot accounts (BOT_ACCOUNT_KEY is set); `authenticated` is 503 otherwise. */
  signedInBots?: boolean | undefined;
}

/** The part of BotServiceDeps the deployment's settings decide, the same in the API and the worker's calendar poller. */
export function botServiceSettingsOf(
  config: Pick<
    Config,
    | 'DEFAULT_BOT_NAME'
    | 'RECORDING_ENABLED_DEFAULT'
    | 'EXTRA_MEETING_ORIGINS'
    | 'TRANSCRIPTION_ENGINE'
    | 'BOT_SCHEDULE_HORIZON_DAYS'
    | 'BOT_SCHEDULE_CLOCK_SKEW_SECONDS'
    | 'MAX_SCHEDULED_BOTS_PER_USER'
  >,
): Pick<
  BotServiceDeps,
  'defaultBotName' | 'recordingEnabledDefault' | 'extraMeetingOrigins' | 'transcriptionEngine' | 'schedule'
> {
  return {
    defaultBotName: config.DEFAULT_BOT_NAME,
    recordingEnabledDefault: config.RECORDING_ENABLED_DEFAULT,
    extraMeetingOrigins: config.EXTRA_MEETING_ORIGINS,
    transcriptionEngine: config.TRANSCRIPTION_ENGINE,
    schedule: {
      horizonDays: config.BOT_SCHEDULE_HORIZON_DAYS,
      clockSkewSeconds: config.BOT_SCHEDULE_CLOCK_SKEW_SECONDS,
      maxWaitingPerUser: config.MAX_SCHEDULED_BOTS_PER_USER,
    },
  };
}

/** A language the engine can't take is refused (400). */
export function assertLanguageSupported(engine: TranscriptionEngine, language: string | undefined): void {
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

/**
 * createBot; with a `scheduleKey` already used, the meeting made for it (found under the same lock).
 * For scheduleBot (scheduled-bots.ts).
 */
export async function createOrFindBot(
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

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: unknown; constraint?: unknown };
  return pgError?.code === '23505' && pgError.constraint === constraint;
}
