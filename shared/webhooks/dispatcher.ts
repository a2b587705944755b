import type { Queue } from 'bullmq';
import { JobNames, JobOptions } from '../contract/jobs.js';
import type { Knex } from '../infra/knex.js';
import { pendingHeads } from './outbox.js';

/**
 * Queues the delivery that may go out next for each meeting: its oldest pending one. Later ones wait
 * until it is delivered or given up, which keeps each meeting's events in order. Job ids make a
 * second queueing of the same delivery (another replica, the sweep) a no-op.
 */
export class WebhookDispatcher {
  constructor(
    private readonly db: Knex,
    private readonly queue: Queue,
  ) {}

  /** Queues the head of each named meeting (of every meeting with pending deliveries when none are named). */
  async kick(meetingIds?: readonly number[]): Promise<number> {
    const heads = await pendingHeads(this.db, meetingIds);
    if (heads.length === 0) return 0;
    await this.queue.addBulk(
      heads.map((head) => {
        const data = { deliveryId: head.id, windowStartedAt: head.windowStartedAt.getTime() };
        return { name: JobNames.deliverWebhook, data, opts: JobOptions[JobNames.deliverWebhook](data) };
      }),
    );
    return heads.length;
  }
}
