import type { Counter } from 'prom-client';
import type { BotJobs } from '../../shared/bots/jobs.js';
import type { Config } from '../../shared/infra/config.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { releaseForRelaunch } from '../../shared/meetings/launch-store.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { recordStatusChange } from '../../shared/meetings/transitions.js';
import { findTranscriptTimeline } from '../../shared/transcripts/store.js';
import { domainEvents } from '../events/domain-events.js';
import { failMeeting } from '../events/fail-meeting.js';

export interface RelaunchDeps {
  config: Pick<Config, 'BOT_MAX_RELAUNCHES'>;
  db: Knex;
  log: Logger;
  announce: AnnounceChanges;
  jobs: Pick<BotJobs, 'launch'>;
  metrics: { relaunches: Pick<Counter, 'inc'> };
}

/** A live meeting's bot, gone for reasons not its own (its host lost, its pod evicted). */
export interface LostBot {
  meetingId: number;
  sessionId: string;
  relaunchCount: number;
}

export type RelaunchOutcome = 'relaunched' | 'gave_up' | 'already_handled';

/**
 * Relaunches the meeting of a bot lost for reasons not its own: the meeting keeps its record, the new
 * bot rejoins and carries on its transcript's time line, and the gap is in the meeting's events
 * (`relaunched`, with `why` and where the transcript stopped). A meeting relaunched
 * BOT_MAX_RELAUNCHES times already is failed (`relaunch_gave_up`). Releasing the old session is a
 * compare-and-set, so however many workers see the loss at once a meeting is relaunched once.
 */
export async function relaunchOrGiveUp(
  deps: RelaunchDeps,
  lost: LostBot,
  why: string,
): Promise<RelaunchOutcome> {
  if (lost.relaunchCount >= deps.config.BOT_MAX_RELAUNCHES) {
    const detail = `${why}; the meeting was relaunched ${lost.relaunchCount} times already (BOT_MAX_RELAUNCHES=${deps.config.BOT_MAX_RELAUNCHES})`;
    if (!(await failMeeting(deps, lost.meetingId, 'relaunch_gave_up', detail))) return 'already_handled';
    deps.metrics.relaunches.inc({ outcome: 'gave_up' });
    deps.log.warn({ meetingId: lost.meetingId, why }, 'gave up relaunching a meeting');
    return 'gave_up';
  }
  const relaunched = await deps.db.transaction(async (trx) => {
    const meeting = await releaseForRelaunch(trx, lost.meetingId, lost.sessionId);
    if (!meeting) return undefined;
    const timeline = await findTranscriptTimeline(trx, meeting.id);
    const stoppedAt = timeline.lastEnd
      ? `the transcript stopped at ${timeline.lastEnd.toISOString()} (${timeline.lastEndSeconds?.toFixed(1)} s)`
      : 'no transcript yet';
    await recordStatusChange(trx, domainEvents, {
      meetingId: meeting.id,
      from: meeting.status,
      to: meeting.status,
      source: 'worker',
      reason: 'relaunched',
      detail: `${why}; ${stoppedAt}; relaunch ${meeting.relaunchCount} of at most ${deps.config.BOT_MAX_RELAUNCHES}`,
    });
    return meeting;
  });
  if (!relaunched) return 'already_handled';
  deps.metrics.relaunches.inc({ outcome: 'relaunched' });
  deps.log.warn(
    { meetingId: relaunched.id, why, relaunch: relaunched.relaunchCount },
    'relaunching a meeting',
  );
  await deps.announce([relaunched.id]);
  await enqueueRelaunch(deps, relaunched.id);
  return 'relaunched';
}

/** The launch job of a relaunch (its id names the relaunch, so queueing it again changes nothing). */
export async function enqueueRelaunch(
  deps: Pick<RelaunchDeps, 'db' | 'jobs' | 'log'>,
  meetingId: number,
): Promise<void> {
  const meeting = await findMeetingById(deps.db, meetingId);
  if (!meeting || meeting.launchSessionId || meeting.relaunchCount === 0) return;
  try {
    await deps.jobs.launch({
      meetingId: meeting.id,
      userId: meeting.userId,
      platform: meeting.platform,
      nativeMeetingId: meeting.nativeMeetingId,
      relaunch: meeting.relaunchCount,
    });
  } catch (error) {
    // Queued again by the next lost-host sweep (worker/sweeps/host-recovery.ts).
    deps.log.warn({ err: error, meetingId }, 'could not queue the relaunch yet');
  }
}
