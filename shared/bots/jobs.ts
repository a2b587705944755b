import type { JobsOptions, Queue } from 'bullmq';
import {
  type JobMeetingRef,
  JobNames,
  JobOptions,
  type LaunchBotPayload,
  type StopBotPayload,
} from '../contract/jobs.js';
import { withTimeout } from '../infra/async.js';
import type { BotQueues } from '../infra/queues.js';
import type { MeetingRecord } from '../meetings/store.js';

/** What the API asks of the workers. An interface so unit tests can pass a fake. */
export interface BotJobs {
  launch(payload: LaunchBotPayload): Promise<void>;
  stop(payload: StopBotPayload): Promise<void>;
}

/** An enqueue that hasn't reached Redis by then won't: answer the request instead of hanging. */
const ENQUEUE_TIMEOUT_MS = 5000;

async function enqueue(queue: Queue, name: string, payload: object, options: JobsOptions): Promise<void> {
  await withTimeout(queue.add(name, payload, options), ENQUEUE_TIMEOUT_MS, 'enqueue');
}

/**
 * A scheduled launch's job id names its time, so a bot moved away from a time and back again would
 * find that time's job already finished (it found the bot moved and did nothing) and BullMQ would
 * keep it instead of adding the new one: a finished job of that id is removed first. Re-adding one
 * that did launch is harmless: the launch is claimed in Postgres once.
 */
async function dropFinishedJob(queue: Queue, jobId: string | undefined): Promise<void> {
  if (!jobId) return;
  const job = await queue.getJob(jobId);
  if (job && ((await job.isCompleted()) || (await job.isFailed()))) await job.remove();
}

export function bullBotJobs(queues: BotQueues): BotJobs {
  return {
    launch: async (payload) => {
      const options = JobOptions[JobNames.launchBot](payload);
      if (payload.joinAt !== undefined) {
        await withTimeout(dropFinishedJob(queues.launch, options.jobId), ENQUEUE_TIMEOUT_MS, 'enqueue');
      }
      await enqueue(queues.launch, JobNames.launchBot, payload, options);
    },
    stop: (payload) =>
      enqueue(queues.control, JobNames.stopBot, payload, JobOptions[JobNames.stopBot](payload)),
  };
}

/** The launch job of a meeting: delayed until its `join_at` when it has one. */
export function launchPayload(meeting: MeetingRecord): LaunchBotPayload {
  return {
    ...jobMeetingRef(meeting),
    ...(meeting.joinAt ? { joinAt: meeting.joinAt.getTime() } : {}),
  };
}

/** How a job names its meeting. */
export function jobMeetingRef(meeting: MeetingRecord): JobMeetingRef {
  return {
    meetingId: meeting.id,
    userId: meeting.userId,
    platform: meeting.platform,
    nativeMeetingId: meeting.nativeMeetingId,
  };
}
