import { DelayedError, type Job, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { z } from 'zod';
import {
  CONTROL_QUEUE,
  deliverWebhookPayload,
  JobNames,
  LAUNCH_QUEUE,
  launchBotPayload,
  stopBotPayload,
  WEBHOOK_BACKOFF,
  WEBHOOK_QUEUE,
} from '../shared/contract/jobs.js';
import { deliverWebhook } from '../shared/webhooks/delivery.js';
import type { WebhookDeps } from '../shared/webhooks/deps.js';
import type { WebhookDispatcher } from '../shared/webhooks/dispatcher.js';
import { retryDelayMs } from '../shared/webhooks/retry-schedule.js';
import { launchBot } from './jobs/launch-bot.js';
import { stopBot } from './jobs/stop-bot.js';
import type { LaunchPlacement } from './placement.js';
import type { WorkerDeps } from './worker-deps.js';

/** Payloads are validated again when dequeued: a job that can never run fails at once, without retries. */
function payloadOf<Schema extends z.ZodType>(schema: Schema, job: Job): z.infer<Schema> {
  const parsed = schema.safeParse(job.data);
  if (!parsed.success)
    throw new UnrecoverableError(`invalid ${job.name} payload: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

const SLOT_WAIT_MS = 2000;
/** A launch left for a roomier worker comes back to the queue this soon. */
const PLACEMENT_WAIT_MS = 300;

/**
 * Takes launches only while this worker has a free bot slot and none of its bots lags: otherwise
 * it pauses (other replicas take the next launches) and resumes when a bot ends or catches up. A launch another worker has
 * more room for is left to that worker (placement by free capacity).
 */
export function createLaunchWorker(deps: WorkerDeps, connection: Redis, placement: LaunchPlacement): Worker {
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

/** Stops: quick, never gated by slots. */
export function createControlWorker(deps: WorkerDeps, connection: Redis): Worker {
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

/** Webhook deliveries, many at once (each meeting's still one at a time), retried on their own backoff. */
export function createWebhookWorker(
  deps: WebhookDeps,
  dispatcher: WebhookDispatcher,
  connection: Redis,
): Worker {
  const worker = new Worker(
    WEBHOOK_QUEUE,
    async (job) => {
      if (job.name !== JobNames.deliverWebhook) throw new UnrecoverableError(`unknown job ${job.name}`);
      return deliverWebhook(deps, dispatcher, payloadOf(deliverWebhookPayload, job), job.attemptsMade);
    },
    {
      connection,
      prefix: deps.config.QUEUE_PREFIX,
      concurrency: deps.config.WEBHOOK_CONCURRENCY,
      autorun: false,
      settings: {
        backoffStrategy: (attemptsMade, type) => {
          if (type !== WEBHOOK_BACKOFF) throw new Error(`unknown backoff ${type}`);
          return retryDelayMs(attemptsMade, deps.config);
        },
      },
    },
  );
  worker.on('error', (error) => deps.log.error({ err: error }, 'webhook worker error'));
  return worker;
}
