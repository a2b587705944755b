import { isTerminal } from '../../shared/contract/meeting-status.js';
import {
  listLiveMeetingsOfWorker,
  listPendingRetriesDueBefore,
  listUnclaimedRequestedBefore,
} from '../../shared/meetings/launch-store.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { failMeeting } from '../events/fail-meeting.js';
import { LAUNCH_IN_PROGRESS_MS, sweepBotSessions } from '../fleet/bot-sessions.js';
import { handleBotExit } from '../fleet/exit-handler.js';
import { joinRetryOf, queueRetry } from '../retries/bot-outcome.js';
import { deploymentLabels } from '../runtime/bot-launch-spec.js';
import { type BotContainerInfo, Labels } from '../runtime/bot-runtime.js';
import type { WorkerDeps } from '../worker-deps.js';
import { sweepCommandStreams } from './command-stream-sweep.js';

export interface ReconcileReport {
  adopted: number;
  /** Bots whose meeting was relaunched elsewhere while this host was away. */
  removedMoved: number;
  exitedHandled: number;
  removedForEndedMeetings: number;
  failedMissingContainers: number;
  failedUnclaimed: number;
  /** Bot credentials revoked because their bot is gone (or restored after Redis lost them). */
  credentialsRevoked: number;
  credentialsRestored: number;
  /** Ended bots whose streams were all ingested, removed with their streams. */
  sessionsDropped: number;
  /** Command streams of meetings that ended and whose bot is gone, deleted. */
  commandStreamsDeleted: number;
}

/**
 * Makes Docker and Postgres agree, at start-up (which re-adopts this worker's running bots instead
 * of killing or relaunching them) and periodically:
 * - a container of a finished meeting is removed (a running one after the stop grace period);
 * - a container that exited is handled as an exit (final event, or failed with its exit code);
 * - a running container whose meeting was relaunched on another host (this one was lost for a
 *   while) is removed: the meeting has a new bot;
 * - a live meeting this worker launched whose container is gone is failed;
 * - a meeting no worker took within REQUESTED_TIMEOUT_SECONDS is failed, saying so;
 * - a launch unclaimed for half a minute is queued again (a no-op unless it was never queued);
 * - so is a refused bot's retry half a minute past its time, failed once it waited too long;
 * - a bot credential whose bot is gone (this host's container gone, or a lost host's bot no longer
 *   alive) is revoked (worker/fleet/bot-sessions.ts);
 * - the command stream of a meeting that ended, once its bot is gone, is deleted
 *   (worker/sweeps/command-stream-sweep.ts).
 */
export async function reconcile(deps: WorkerDeps): Promise<ReconcileReport> {
  const report: ReconcileReport = {
    adopted: 0,
    removedMoved: 0,
    exitedHandled: 0,
    removedForEndedMeetings: 0,
    failedMissingContainers: 0,
    failedUnclaimed: 0,
    credentialsRevoked: 0,
    credentialsRestored: 0,
    sessionsDropped: 0,
    commandStreamsDeleted: 0,
  };
  const containers = await deps.runtime.list(deploymentLabels(deps.config));
  for (const container of containers) await reconcileContainer(deps, container, report);

  const present = new Set(containers.map((container) => container.labels[Labels.sessionId]));
  for (const meeting of await listLiveMeetingsOfWorker(deps.db, deps.config.WORKER_ID)) {
    if (present.has(meeting.launchSessionId ?? '')) continue;
    if (meeting.launchedAt && Date.now() - meeting.launchedAt.getTime() < LAUNCH_IN_PROGRESS_MS) continue;
    const detail = `the bot container of worker ${deps.config.WORKER_ID} is gone`;
    if (await failMeeting(deps, meeting.id, 'container_missing', detail)) report.failedMissingContainers += 1;
  }

  const timeoutSeconds = deps.config.REQUESTED_TIMEOUT_SECONDS;
  for (const meeting of await listUnclaimedRequestedBefore(
    deps.db,
    new Date(Date.now() - timeoutSeconds * 1000),
  )) {
    const detail = `no worker took the launch within ${timeoutSeconds} s`;
    if (await failMeeting(deps, meeting.id, 'no_worker_available', detail)) report.failedUnclaimed += 1;
  }
  report.failedUnclaimed += await sweepPendingRetries(deps);
  await requeueLaunches(deps);
  // Listed again: the exits handled above removed containers and revoked their credentials.
  const remaining = await deps.runtime.list(deploymentLabels(deps.config));
  const sessions = new Set(remaining.map((container) => container.labels[Labels.sessionId] ?? ''));
  Object.assign(report, await sweepBotSessions(deps, sessions));
  // After the sessions: a bot gone since the last sweep has its session closed above.
  report.commandStreamsDeleted = await sweepCommandStreams(deps);
  return report;
}

/**
 * Retries of refused bots whose due time has passed and that no launch claimed: queued again (a no-op
 * while their delayed job is in Redis; only one whose queueing failed is added), and failed with
 * `no_worker_available` once no worker took them within REQUESTED_TIMEOUT_SECONDS of their time.
 */
export async function sweepPendingRetries(
  deps: Pick<WorkerDeps, 'db' | 'jobs' | 'log' | 'announce' | 'config'>,
): Promise<number> {
  const timeoutSeconds = deps.config.REQUESTED_TIMEOUT_SECONDS;
  let failed = 0;
  for (const meeting of await listPendingRetriesDueBefore(
    deps.db,
    new Date(Date.now() - UNQUEUED_AFTER_MS),
  )) {
    const dueAt = meeting.retryDueAt ?? new Date();
    if (Date.now() - dueAt.getTime() >= timeoutSeconds * 1000) {
      const detail = `no worker took retry ${meeting.joinRetries} within ${timeoutSeconds} s of its time`;
      if (await failMeeting(deps, meeting.id, 'no_worker_available', detail)) failed += 1;
      continue;
    }
    await queueRetry({ db: deps.db, log: deps.log, retry: joinRetryOf(deps) }, meeting, dueAt);
  }
  return failed;
}

/** A launch not claimed this long may never have been queued (its API process died right after the commit). */
const UNQUEUED_AFTER_MS = 30_000;
const REQUEUE_BATCH = 200;

/**
 * Queues the launch of requested meetings nobody has claimed for a while. The job id is the
 * meeting's, so a launch still waiting in the queue (all slots busy) is left as it is; only one the
 * API never got to queue is added.
 */
export async function requeueLaunches(deps: Pick<WorkerDeps, 'db' | 'jobs' | 'log'>): Promise<void> {
  const waiting = await listUnclaimedRequestedBefore(
    deps.db,
    new Date(Date.now() - UNQUEUED_AFTER_MS),
    REQUEUE_BATCH,
  );
  for (const meeting of waiting) {
    await deps.jobs
      .launch({
        meetingId: meeting.id,
        userId: meeting.userId,
        platform: meeting.platform,
        nativeMeetingId: meeting.nativeMeetingId,
        ...(meeting.joinAt ? { joinAt: meeting.joinAt.getTime() } : {}),
      })
      .catch((error: unknown) =>
        deps.log.warn({ err: error, meetingId: meeting.id }, 'could not requeue a launch'),
      );
  }
}

async function reconcileContainer(
  deps: WorkerDeps,
  container: BotContainerInfo,
  report: ReconcileReport,
): Promise<void> {
  const meetingId = Number(container.labels[Labels.meetingId]);
  const meeting = Number.isInteger(meetingId) ? await findMeetingById(deps.db, meetingId) : undefined;
  const ownedHere = container.labels[Labels.workerId] === deps.config.WORKER_ID;

  if (!container.running) {
    // Exits are handled by the container's own worker; an orphan's exit (its worker gone) by anyone.
    if (ownedHere || !meeting || isTerminal(meeting.status)) {
      await handleBotExit(deps, container.id);
      report.exitedHandled += 1;
    }
    return;
  }

  if (!meeting || isTerminal(meeting.status)) {
    const endedAt = meeting?.endTime?.getTime() ?? 0;
    if (Date.now() - endedAt >= deps.config.BOT_STOP_GRACE_SECONDS * 1000) {
      deps.log.info(
        { meetingId, containerId: container.id.slice(0, 12) },
        'removing the bot of a finished meeting',
      );
      await deps.runtime.stop(container.id, 10);
      await handleBotExit(deps, container.id);
      report.removedForEndedMeetings += 1;
    }
    return;
  }

  const sessionId = container.labels[Labels.sessionId] ?? '';
  if (meeting.launchSessionId !== sessionId) {
    deps.log.warn(
      { meetingId, containerId: container.id.slice(0, 12), relaunches: meeting.relaunchCount },
      'removing a bot whose meeting was relaunched elsewhere',
    );
    await deps.runtime.stop(container.id, 5);
    await handleBotExit(deps, container.id);
    report.removedMoved += 1;
    return;
  }

  // Taken over from a dead worker (worker/sweeps/bot-takeover.ts) but not relabelled yet.
  if (!ownedHere && meeting.workerId === deps.config.WORKER_ID && deps.runtime.relabel) {
    await deps.runtime.relabel(container.id, { [Labels.workerId]: deps.config.WORKER_ID });
  } else if (!ownedHere) return;
  if (!deps.fleet.has(container.id)) {
    deps.fleet.adopt({
      containerId: container.id,
      meetingId,
      sessionId,
    });
    deps.log.info({ meetingId, containerId: container.id.slice(0, 12) }, 're-adopted a running bot');
    report.adopted += 1;
  }
}
