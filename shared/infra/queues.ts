import { Queue, type QueueOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { CONTROL_QUEUE, LAUNCH_QUEUE, WEBHOOK_QUEUE } from '../contract/jobs.js';

export interface BotQueues {
  launch: Queue;
  control: Queue;
}

export function createWebhookQueue(connection: Redis, prefix: string, options: Partial<QueueOptions> = {}) {
  return new Queue(WEBHOOK_QUEUE, { connection, prefix, ...options });
}

export function createBotQueues(
  connection: Redis,
  prefix: string,
  options: Partial<QueueOptions> = {},
): BotQueues {
  return {
    launch: new Queue(LAUNCH_QUEUE, { connection, prefix, ...options }),
    control: new Queue(CONTROL_QUEUE, { connection, prefix, ...options }),
  };
}
