import { BadRequestError } from '../infra/errors.js';

/** BOT_SCHEDULE_HORIZON_DAYS and BOT_SCHEDULE_CLOCK_SKEW_SECONDS. */
export interface ScheduleSettings {
  horizonDays: number;
  clockSkewSeconds: number;
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
