import { randomUUID } from 'node:crypto';
import { claimScheduledLaunch } from '../../shared/bots/schedule-claim.js';
import type { LaunchBotPayload } from '../../shared/contract/jobs.js';
import { isTerminal } from '../../shared/contract/meeting-status.js';
import { ScheduleReasons } from '../../shared/contract/schedule.js';
import type { Config } from '../../shared/infra/config.js';
import { claimLaunch, recordBotContainer } from '../../shared/meetings/launch-store.js';
import { insertTransition } from '../../shared/meetings/transitions-store.js';
import type { MeetingRecord } from '../../shared/meetings/store.js';
import { findTranscriptTimeline } from '../../shared/transcripts/store.js';
import { type AccountLaunchDeps, botAccountForLaunch } from '../accounts/bot-account-launch.js';
import { type FailMeetingDeps, failMeeting } from '../events/fail-meeting.js';
import { closeBotSession, openBotSession, type SessionOpenDeps } from '../fleet/bot-sessions.js';
import type { WorkerMetrics } from '../metrics/worker-metrics.js';
import { botContainerSpec } from '../runtime/bot-launch-spec.js';
import { BotNotPlacedError, type BotRuntime, type LaunchProgress } from '../runtime/bot-runtime.js';
import { meetingNamedBy } from './job-meeting.js';

/**
 * What one launch uses, each part handed on as it is to the step that needs it: the meeting's rows
 * (`db`), the bot account (AccountLaunchDeps), the bot's session and credential (SessionOpenDeps),
 * failing the meeting (FailMeetingDeps), and the container.
 */
export interface LaunchDeps extends AccountLaunchDeps, SessionOpenDeps, FailMeetingDeps {
  /** WORKER_ID for the claim; the whole config makes the bot's (botContainerSpec). */
  config: Config;
  /** Starts the bot's container, and removes it when the meeting ended meanwhile. */
  runtime: Pick<BotRuntime, 'start' | 'remove'>;
  metrics: Pick<WorkerMetrics, 'launchDuration'> & Partial<Pick<WorkerMetrics, 'scheduledLaunchDelay'>>;
}

export type LaunchOutcome =
  | { launched: true; containerId: string; sessionId: string }
  | { launched: false; reason: string };

/**
 * Starts one container for a requested meeting, or for a live one being relaunched after its host
 * was lost (then the bot carries on the transcript's time line). The claim in Postgres makes it
 * happen at most once per launch, whatever the retries, stalled jobs or number of workers. The
 * caller holds a slot. The bot gets a Redis credential of its own, revoked if the launch fails.
 */
export async function launchBot(deps: LaunchDeps, payload: LaunchBotPayload): Promise<LaunchOutcome> {
  const log = deps.log.child({ meetingId: payload.meetingId });
  const meeting = await meetingNamedBy(deps.db, payload);
  if (!meeting) return { launched: false, reason: 'meeting not found' };
  if (isTerminal(meeting.status)) return { launched: false, reason: `meeting is ${meeting.status}` };
  if (meeting.launchSessionId) return { launched: false, reason: 'already launched' };
  if (payload.retry !== undefined && payload.retry !== meeting.joinRetries) {
    // A retry's job launches only the retry the meeting waits for (not an old one queued again).
    return { launched: false, reason: `retry ${payload.retry} is not the pending one` };
  }
  if (payload.retry === undefined && meeting.retryDueAt !== null) {
    return { launched: false, reason: 'a retry is pending; its own job launches it' };
  }
  if (meeting.status !== 'requested' && !payload.relaunch && !payload.retry) {
    return { launched: false, reason: `meeting is ${meeting.status}` };
  }

  const sessionId = randomUUID();
  const claim = { sessionId, workerId: deps.config.WORKER_ID };
  let claimed: MeetingRecord | undefined;
  if (meeting.joinAt && !payload.relaunch && !payload.retry) {
    // A scheduled bot: only the job for its current time launches it, and only if the limit has room.
    if (payload.joinAt !== meeting.joinAt.getTime()) return { launched: false, reason: 'moved' };
    const scheduled = await claimScheduledLaunch(deps.db, meeting, claim);
    if ('full' in scheduled) {
      const { running, limit } = scheduled.full;
      const detail = `the concurrent-bot limit (${limit}) was full at join_at: ${running} bots running`;
      log.info({ running, limit }, 'scheduled bot not launched: the concurrent-bot limit is full');
      await failMeeting(deps, meeting.id, ScheduleReasons.limitFull, detail);
      return { launched: false, reason: ScheduleReasons.limitFull };
    }
    if ('lost' in scheduled) return { launched: false, reason: 'claimed by another launch' };
    claimed = scheduled.claimed;
    deps.metrics.scheduledLaunchDelay?.observe(Math.max(0, (Date.now() - meeting.joinAt.getTime()) / 1000));
  } else {
    claimed = await claimLaunch(deps.db, meeting.id, claim);
  }
  if (!claimed) return { launched: false, reason: 'claimed by another launch' };

  const signIn = await botAccountForLaunch(deps, claimed);
  if ('gone' in signIn) return { launched: false, reason: 'meeting ended during launch' };
  if ('failed' in signIn) {
    log.info({ reason: signIn.failed.reason }, 'signed-in bot not launched');
    await failMeeting(deps, meeting.id, signIn.failed.reason, signIn.failed.detail);
    return { launched: false, reason: signIn.failed.reason };
  }
  const account = 'account' in signIn ? signIn.account : null;
  if (account) log.info({ botAccountId: account.id }, 'the bot signs in with a bot account');

  let containerId: string;
  const timer = deps.metrics.launchDuration.startTimer();
  try {
    const origin =
      claimed.relaunchCount > 0 ? (await findTranscriptTimeline(deps.db, meeting.id)).origin : null;
    const redisUrl = await openBotSession(deps, { meetingId: meeting.id, sessionId });
    containerId = await deps.runtime.start(
      botContainerSpec(deps.config, claimed, sessionId, origin, redisUrl, account),
      launchProgressOf(deps, claimed),
    );
    timer();
  } catch (error) {
    log.error({ err: error }, 'could not start the bot container');
    await closeBotSession(deps, sessionId).catch((closeError: unknown) =>
      log.warn({ err: closeError }, 'could not revoke the credential now; the reconciler will'),
    );
    const notPlaced = error instanceof BotNotPlacedError;
    const detail = notPlaced
      ? error.message
      : `could not start the bot container: ${(error as Error).message}`.slice(0, 2000);
    await failMeeting(deps, meeting.id, notPlaced ? error.reason : 'launch_failed', detail);
    return { launched: false, reason: 'container did not start' };
  }

  const recorded = await recordBotContainer(deps.db, meeting.id, sessionId, containerId);
  if (!recorded) {
    // The meeting ended (stopped by its user) while the container was starting: don't leave it running.
    log.info('meeting ended while its bot was starting; removing the container');
    await deps.runtime.remove(containerId);
    await closeBotSession(deps, sessionId);
    return { launched: false, reason: 'meeting ended during launch' };
  }
  log.info({ containerId: containerId.slice(0, 12), sessionId }, 'bot container started');
  return { launched: true, containerId, sessionId };
}

/**
 * What the runtime says while a launch waits (a pod no node can take yet), in the meeting's events:
 * `waiting_for_node`, keeping its status, each different word once.
 */
function launchProgressOf(deps: LaunchDeps, meeting: MeetingRecord): LaunchProgress {
  return {
    waiting: (detail) => {
      deps.log.info({ meetingId: meeting.id, detail }, 'the bot waits for a place to run');
      insertTransition(deps.db, {
        meetingId: meeting.id,
        from: meeting.status,
        to: meeting.status,
        source: 'worker',
        reason: 'waiting_for_node',
        detail: detail.slice(0, 2000),
      })
        .then(() => deps.announce([meeting.id]))
        .catch((error: unknown) =>
          deps.log.warn({ err: error, meetingId: meeting.id }, 'could not record the wait'),
        );
    },
  };
}
