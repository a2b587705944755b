import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { Platform } from '../contract/platforms.js';
import { ScheduleReasons } from '../contract/schedule.js';
import { ConflictError, NotFoundError, SpecErrors } from '../infra/errors.js';
import { findLiveMeeting } from '../meetings/live-store.js';
import {
  findMeetingByScheduleKey,
  lockWaitingScheduled,
  moveScheduledJoin,
  releaseScheduleKey,
} from '../meetings/schedule-store.js';
import type { MeetingRecord } from '../meetings/store.js';
import { recordStatusChange, transitionMeeting } from '../meetings/transitions.js';
import { launchPayload } from './jobs.js';
import { checkJoinAt, isWaitingScheduled, type SchedulerNote, withNote } from './schedule.js';
import { type BotRequest, type BotServiceDeps, createOrFindBot } from './service.js';

// Scheduled bots before their time: a scheduler's (a calendar feed's) bot for one occurrence, and
// moving or cancelling a bot still waiting. Sending one (POST /bots with join_at) is createBot's.

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
