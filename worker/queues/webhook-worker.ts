import { UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  deliverWebhookPayload,
  JobNames,
  WEBHOOK_BACKOFF,
  WEBHOOK_QUEUE,
} from '../../shared/contract/jobs.js';
import { deliverWebhook } from '../../shared/webhooks/delivery.js';
import type { WebhookDeps } from '../../shared/webhooks/deps.js';
import type { WebhookDispatcher } from '../../shared/webhooks/dispatcher.js';
import { retryDelayMs } from '../../shared/webhooks/retry-schedule.js';
import { payloadOf } from './job-payload.js';

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
