import { randomUUID } from 'node:crypto';
import type { LaunchBotPayload } from '../../shared/contract/jobs.js';
import { isTerminal } from '../../shared/contract/meeting-status.js';
import { claimLaunch, recordBotContainer } from '../../shared/meetings/launch-store.js';
import { findTranscriptTimeline } from '../../shared/transcripts/store.js';
import { failMeeting } from '../fail-meeting.js';
import { botContainerSpec } from '../runtime/bot-launch-spec.js';
import type { WorkerDeps } from '../worker-deps.js';
import { meetingNamedBy } from './job-meeting.js';

export type LaunchOutcome =
  | { launched: true; containerId: string; sessionId: string }
  | { launched: false; reason: string };

/**
 * Starts one container for a requested meeting, or for a live one being relaunched after its host
 * was lost (then the bot carries on the transcript's time line). The claim in Postgres makes it
 * happen at most once per launch, whatever the retries, stalled jobs or number of workers. The
 * caller holds a slot.
 */
export async function launchBot(deps: WorkerDeps, payload: LaunchBotPayload): Promise<LaunchOutcome> {
  const log = deps.log.child({ meetingId: payload.meetingId });
  const meeting = await meetingNamedBy(deps.db, payload);
  if (!meeting) return { launched: false, reason: 'meeting not found' };
  if (isTerminal(meeting.status)) return { launched: false, reason: `meeting is ${meeting.status}` };
  if (meeting.launchSessionId) return { launched: false, reason: 'already launched' };
  if (meeting.status !== 'requested' && !payload.relaunch) {
    return { launched: false, reason: `meeting is ${meeting.status}` };
  }

  const sessionId = randomUUID();
  const claimed = await claimLaunch(deps.db, meeting.id, { sessionId, workerId: deps.config.WORKER_ID });
  if (!claimed) return { launched: false, reason: 'claimed by another launch' };

  let containerId: string;
  const timer = deps.metrics.launchDuration.startTimer();
  try {
    const origin =
      claimed.relaunchCount > 0 ? (await findTranscriptTimeline(deps.db, meeting.id)).origin : null;
    containerId = await deps.runtime.start(botContainerSpec(deps.config, claimed, sessionId, origin));
    timer();
  } catch (error) {
    log.error({ err: error }, 'could not start the bot container');
    const detail = `could not start the bot container: ${(error as Error).message}`.slice(0, 2000);
    await failMeeting(deps, meeting.id, 'launch_failed', detail);
    return { launched: false, reason: 'container did not start' };
  }

  const recorded = await recordBotContainer(deps.db, meeting.id, sessionId, containerId);
  if (!recorded) {
    // The meeting ended (stopped by its user) while the container was starting: don't leave it running.
    log.info('meeting ended while its bot was starting; removing the container');
    await deps.runtime.remove(containerId);
    return { launched: false, reason: 'meeting ended during launch' };
  }
  log.info({ containerId: containerId.slice(0, 12), sessionId }, 'bot container started');
  return { launched: true, containerId, sessionId };
}
