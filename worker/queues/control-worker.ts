import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { CONTROL_QUEUE, JobNames, stopBotPayload } from '../../shared/contract/jobs.js';
import { type StopDeps, stopBot } from '../jobs/stop-bot.js';
import { payloadOf } from './job-payload.js';

/** Stops: quick, never gated by slots. */
export function createControlWorker(deps: StopDeps, connection: Redis): Worker {
  const worker = new Worker(
    CONTROL_QUEUE,
    async (job) => {
      switch (job.name) {
        case JobNames.stopBot:
          return stopBot(deps, payloadOf(stopBotPayload, job));
        default:
          throw new UnrecoverableError(`unknown job ${job.name}`);
      }
    },
    { connection, prefix: deps.config.QUEUE_PREFIX, concurrency: 10, autorun: false },
  );
  worker.on('error', (error) => deps.log.error({ err: error }, 'control worker error'));
  worker.on('failed', (job, error) =>
    deps.log.warn({ err: error, jobId: job?.id, name: job?.name }, 'control job failed'),
  );
  return worker;
}
