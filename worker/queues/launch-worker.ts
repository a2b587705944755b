import { DelayedError, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { JobNames, LAUNCH_QUEUE, launchBotPayload } from '../../shared/contract/jobs.js';
import type { BotFleet } from '../fleet/bot-fleet.js';
import { type LaunchDeps, launchBot } from '../jobs/launch-bot.js';
import { payloadOf } from './job-payload.js';
import type { LaunchPlacement } from './placement.js';

const SLOT_WAIT_MS = 2000;
/** A launch left for a roomier worker comes back to the queue this soon. */
const PLACEMENT_WAIT_MS = 300;

/** A launch as launchBot makes it, and the slots it is taken against. */
export interface LaunchWorkerDeps extends LaunchDeps {
  fleet: BotFleet;
}

/**
 * Takes launches only while this worker has a free bot slot and none of its bots lags: otherwise
 * it pauses (other replicas take the next launches) and resumes when a bot ends or catches up. A launch another worker has
 * more room for is left to that worker (placement by free capacity).
 */
export function createLaunchWorker(
  deps: LaunchWorkerDeps,
  connection: Redis,
  placement: LaunchPlacement,
): Worker {
  const worker: Worker = new Worker(
    LAUNCH_QUEUE,
    async (job, token) => {
      if (job.name !== JobNames.launchBot) throw new UnrecoverableError(`unknown job ${job.name}`);
      const payload = payloadOf(launchBotPayload, job);
      if (!deps.fleet.reserve()) {
        await job.moveToDelayed(Date.now() + SLOT_WAIT_MS, token);
        void worker.pause(true);
        throw new DelayedError();
      }
      if (await placement.shouldDefer(job.id ?? '')) {
        deps.fleet.settle(undefined);
        await job.moveToDelayed(Date.now() + PLACEMENT_WAIT_MS, token);
        throw new DelayedError();
      }
      try {
        const outcome = await launchBot(deps, payload);
        deps.fleet.settle(
          outcome.launched
            ? { containerId: outcome.containerId, meetingId: payload.meetingId, sessionId: outcome.sessionId }
            : undefined,
        );
        if (!deps.fleet.accepting) void worker.pause(true);
        return outcome;
      } catch (error) {
        deps.fleet.settle(undefined);
        throw error;
      }
    },
    { connection, prefix: deps.config.QUEUE_PREFIX, concurrency: 1, autorun: false },
  );
  deps.fleet.on('freed', () => {
    if (worker.isPaused() && deps.fleet.accepting) worker.resume();
  });
  worker.on('error', (error) => deps.log.error({ err: error }, 'launch worker error'));
  worker.on('failed', (job, error) => deps.log.warn({ err: error, jobId: job?.id }, 'launch job failed'));
  return worker;
}
