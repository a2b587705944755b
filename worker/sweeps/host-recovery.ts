import { botAliveKey } from '../../shared/contract/streams.js';
import { listUnclaimedRelaunchesBefore } from '../../shared/meetings/launch-store.js';
import { listMeetingsOfLapsedWorkers, type OrphanedMeeting } from '../../shared/workers/store.js';
import { failMeeting } from '../events/fail-meeting.js';
import { enqueueRelaunch, relaunchOrGiveUp } from '../retries/relaunch.js';
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
  /** Of those, the bots this worker took over (where every worker sees the same bots). */
  takenOver: number;
  relaunchesTimedOut: number;
}

/**
 * Finds the live meetings of workers whose heartbeat lapsed (their host is lost) and relaunches
 * each on whichever host has room: the meeting keeps its record, the new bot rejoins and carries
 * on its transcript's time line, and the gap is recorded in the meeting's events (`relaunched`).
 * A meeting whose bot still runs is left alone, or taken over by `takeOver` where any worker can
 * (worker/sweeps/bot-takeover.ts); one relaunched BOT_MAX_RELAUNCHES times already is
 * failed (`relaunch_gave_up`). Releasing the old session is a compare-and-set, so however many
 * workers sweep at once a meeting is relaunched once.
 */
export async function recoverLostHosts(
  deps: RecoveryDeps,
  takeOver?: (orphan: OrphanedMeeting) => Promise<boolean>,
): Promise<RecoveryReport> {
  const report: RecoveryReport = {
    relaunched: 0,
    gaveUp: 0,
    botsStillAlive: 0,
    takenOver: 0,
    relaunchesTimedOut: 0,
  };
  const orphans = await listMeetingsOfLapsedWorkers(
    deps.db,
    deps.config.WORKER_LOST_AFTER_SECONDS,
    deps.config.WORKER_ID,
  );
  for (const orphan of orphans) {
    if (await botStillAlive(deps, orphan.sessionId)) {
      report.botsStillAlive += 1;
      if (takeOver && (await takeOver(orphan))) report.takenOver += 1;
      continue;
    }
    const outcome = await relaunchOrGiveUp(deps, orphan, lostHostDetail(orphan));
    if (outcome === 'relaunched') report.relaunched += 1;
    if (outcome === 'gave_up') report.gaveUp += 1;
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
