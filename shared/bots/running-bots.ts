import type { AuthenticatedKey } from '../accounts/keys-store.js';
import type { BotSettingsChange } from '../contract/commands.js';
import type { Platform } from '../contract/platforms.js';
import { ScheduleReasons } from '../contract/schedule.js';
import { NotFoundError, ServiceUnavailableError, SpecErrors } from '../infra/errors.js';
import { findLiveMeeting, listLiveMeetings } from '../meetings/live-store.js';
import { type MeetingRecord, updateBotSettings } from '../meetings/store.js';
import { transitionMeeting } from '../meetings/transitions.js';
import { jobMeetingRef } from './jobs.js';
import { isWaitingScheduled } from './schedule.js';
import { assertLanguageSupported, type BotServiceDeps } from './service.js';

// The user's bots in flight: stopping one, changing an active one's settings, listing them.

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
