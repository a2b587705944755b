import { botAliveKey } from '../../shared/contract/streams.js';
import { listUnclaimedRelaunchesBefore, releaseForRelaunch } from '../../shared/meetings/launch-store.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { recordStatusChange } from '../../shared/meetings/transitions.js';
import { findTranscriptTimeline } from '../../shared/transcripts/store.js';
import { listMeetingsOfLapsedWorkers, type OrphanedMeeting } from '../../shared/workers/store.js';
import { domainEvents } from '../events/domain-events.js';
import { failMeeting } from '../events/fail-meeting.js';
import type { WorkerDeps } from '../worker-deps.js';

export type RecoveryDeps = Pick<
  WorkerDeps,
  'config' | 'db' | 'redis' | 'log' | 'announce' | 'jobs' | 'metrics'
>;

export interface RecoveryReport {
  relaunched: number;
  gaveUp: number;
  /** Meetings of a silent worker whose bot still runs (only the worker died): left alone. */
  botsStillAlive: number;
  relaunchesTimedOut: number;
}

/**
 * Finds the live meetings of workers whose heartbeat lapsed (their host is lost) and relaunches
 * each on whichever host has room: the meeting keeps its record, the new bot rejoins and carries
 * on its transcript's time line, and the gap is recorded in the meeting's events (`relaunched`).
 * A meeting whose bot still runs is left alone; one relaunched BOT_MAX_RELAUNCHES times already is
 * failed (`relaunch_gave_up`). Releasing the old session is a compare-and-set, so however many
 * workers sweep at once a meeting is relaunched once.
 */
export async function recoverLostHosts(deps: RecoveryDeps): Promise<RecoveryReport> {
  const report: RecoveryReport = { relaunched: 0, gaveUp: 0, botsStillAlive: 0, relaunchesTimedOut: 0 };
  const orphans = await listMeetingsOfLapsedWorkers(
    deps.db,
    deps.config.WORKER_LOST_AFTER_SECONDS,
    deps.config.WORKER_ID,
  );
  for (const orphan of orphans) {
    if (await botStillAlive(deps, orphan.sessionId)) {
      report.botsStillAlive += 1;
      continue;
    }
    if (orphan.relaunchCount >= deps.config.BOT_MAX_RELAUNCHES) {
      if (await giveUp(deps, orphan)) report.gaveUp += 1;
      continue;
    }
    if (await relaunch(deps, orphan)) report.relaunched += 1;
  }
  report.relaunchesTimedOut = await failUnclaimedRelaunches(deps);
  await requeuePendingRelaunches(deps);
  return report;
}

async function botStillAlive(deps: RecoveryDeps, sessionId: string): Promise<boolean> {
  return (await deps.redis.exists(botAliveKey(deps.config.QUEUE_PREFIX, sessionId))) > 0;
}

function lostHostDetail(orphan: OrphanedMeeting): string {
  return `worker ${orphan.workerId} on Docker host ${orphan.dockerHost} stopped heartbeating (last at ${orphan.heartbeatAt.toISOString()})`;
}

async function relaunch(deps: RecoveryDeps, orphan: OrphanedMeeting): Promise<boolean> {
  const relaunched = await deps.db.transaction(async (trx) => {
    const meeting = await releaseForRelaunch(trx, orphan.meetingId, orphan.sessionId);
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
      detail: `${lostHostDetail(orphan)}; ${stoppedAt}; relaunch ${meeting.relaunchCount} of at most ${deps.config.BOT_MAX_RELAUNCHES}`,
    });
    return meeting;
  });
  if (!relaunched) return false;
  deps.metrics.relaunches.inc({ outcome: 'relaunched' });
  deps.log.warn(
    {
      meetingId: relaunched.id,
      lostWorker: orphan.workerId,
      host: orphan.dockerHost,
      relaunch: relaunched.relaunchCount,
    },
    'relaunching the meeting of a lost host',
  );
  await deps.announce([relaunched.id]);
  await enqueueRelaunch(deps, relaunched.id);
  return true;
}

async function giveUp(deps: RecoveryDeps, orphan: OrphanedMeeting): Promise<boolean> {
  const detail = `${lostHostDetail(orphan)}; the meeting was relaunched ${orphan.relaunchCount} times already (BOT_MAX_RELAUNCHES=${deps.config.BOT_MAX_RELAUNCHES})`;
  if (!(await failMeeting(deps, orphan.meetingId, 'relaunch_gave_up', detail))) return false;
  deps.metrics.relaunches.inc({ outcome: 'gave_up' });
  deps.log.warn(
    { meetingId: orphan.meetingId, lostWorker: orphan.workerId },
    'gave up relaunching a meeting',
  );
  return true;
}

/** The launch job of a relaunch (its id names the relaunch, so queueing it again changes nothing). */
async function enqueueRelaunch(deps: RecoveryDeps, meetingId: number): Promise<void> {
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
    // Queued again by the next sweep (requeuePendingRelaunches).
    deps.log.warn({ err: error, meetingId }, 'could not queue the relaunch yet');
  }
}

/** A relaunch whose job could not be queued (Redis away) is queued by a later sweep. */
async function requeuePendingRelaunches(deps: RecoveryDeps): Promise<void> {
  for (const meeting of await listUnclaimedRelaunchesBefore(deps.db, new Date())) {
    await enqueueRelaunch(deps, meeting.id);
  }
}

async function failUnclaimedRelaunches(deps: RecoveryDeps): Promise<number> {
  const timeoutSeconds = deps.config.REQUESTED_TIMEOUT_SECONDS;
  let failed = 0;
  for (const meeting of await listUnclaimedRelaunchesBefore(
    deps.db,
    new Date(Date.now() - timeoutSeconds * 1000),
  )) {
    const detail = `no worker took the relaunch within ${timeoutSeconds} s`;
    if (await failMeeting(deps, meeting.id, 'relaunch_gave_up', detail)) {
      failed += 1;
      deps.metrics.relaunches.inc({ outcome: 'gave_up' });
    }
  }
  return failed;
}
