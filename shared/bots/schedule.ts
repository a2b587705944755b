import { BadRequestError, TooManyRequestsError } from '../infra/errors.js';
import type { MeetingRecord } from '../meetings/store.js';

/** BOT_SCHEDULE_HORIZON_DAYS, BOT_SCHEDULE_CLOCK_SKEW_SECONDS and MAX_SCHEDULED_BOTS_PER_USER. */
export interface ScheduleSettings {
  horizonDays: number;
  clockSkewSeconds: number;
  /** Scheduled bots one user may have waiting at once (default DEFAULT_MAX_SCHEDULED_BOTS_PER_USER). */
  maxWaitingPerUser?: number | undefined;
}

/** The default of MAX_SCHEDULED_BOTS_PER_USER. */
export const DEFAULT_MAX_SCHEDULED_BOTS_PER_USER = 500;

/**
 * A scheduled bot refused because the user already has the most allowed waiting (429, as the
 * concurrent-bot limit). Its own class so a scheduler (a calendar feed) can tell it from a refusal
 * of one occurrence and stop asking for the rest of its poll.
 */
export class ScheduledBotsFullError extends TooManyRequestsError {
  constructor(readonly limit: number) {
    super(
      `Too many scheduled bots: at most ${limit} may wait for their join_at at once; cancel one or wait until one has launched`,
    );
  }
}

/**
 * A scheduled bot's `join_at`, checked: not before now (less the allowed clock skew) and at most
 * the horizon ahead. A time within the skew is kept as given; its bot launches at once. Pure but
 * for the clock (`now`).
 */
export function checkJoinAt(joinAt: Date, settings: ScheduleSettings, now = Date.now()): Date {
  if (Number.isNaN(joinAt.getTime())) throw new BadRequestError('join_at: must be a valid date-time');
  if (joinAt.getTime() < now - settings.clockSkewSeconds * 1000) {
    throw new BadRequestError('join_at: must be in the future');
  }
  if (joinAt.getTime() > now + settings.horizonDays * 86_400_000) {
    throw new BadRequestError(`join_at: must be at most ${settings.horizonDays} days ahead`);
  }
  return joinAt;
}

/** A scheduler's name and words for a change it makes, in the meeting's history (`source`, `detail`). */
export interface SchedulerNote {
  source: string;
  detail: string;
}

/** The history's detail: the change, then who asked for it when a scheduler did. */
export function withNote(detail: string, note: SchedulerNote | undefined): string {
  return note?.detail ? `${detail}; ${note.detail}` : detail;
}

/** A scheduled bot still waiting for its time (no launch has claimed it). */
export function isWaitingScheduled(meeting: MeetingRecord): boolean {
  return meeting.status === 'requested' && meeting.joinAt !== null && meeting.launchSessionId === null;
}
