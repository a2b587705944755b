import type { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { PeriodicLoop } from '../../shared/infra/background-loop.js';
import { createWebhookQueue } from '../../shared/infra/queues.js';
import { MeetingChangeListener } from '../../shared/meetings/changes.js';
import type { WebhookDeps } from '../../shared/webhooks/deps.js';
import { WebhookDispatcher } from '../../shared/webhooks/dispatcher.js';
import { createWebhookWorker } from '../queues/webhook-worker.js';

/** How soon after an announcement the dispatcher looks for new deliveries (coalesces bursts). */
const KICK_DEBOUNCE_MS = 25;

/**
 * Webhook delivery in a worker process: hears every "meeting changed" announcement (sent after each
 * commit) and queues the deliveries that became due; a periodic sweep catches any announcement lost
 * on the way, so a delivery is never stuck for longer than the sweep interval.
 */
export class WebhookService {
  readonly queue: Queue;
  readonly dispatcher: WebhookDispatcher;
  private readonly worker: Worker;
  private readonly changes: MeetingChangeListener;
  private readonly due = new Set<number>();
  private kickTimer: NodeJS.Timeout | undefined;
  private readonly sweeps: PeriodicLoop;
  private stopListening: (() => void) | undefined;

  constructor(
    private readonly deps: WebhookDeps,
    connections: { queue: Redis; worker: Redis; subscriber: Redis },
    sweepIntervalMs: number,
  ) {
    this.sweeps = new PeriodicLoop({
      intervalMs: sweepIntervalMs,
      task: () => this.sweep(),
      // sweep() logs its own failures: a round never rejects.
      onError: (error) => deps.log.warn({ err: error }, 'webhook sweep failed'),
    });
    this.queue = createWebhookQueue(connections.queue, deps.config.QUEUE_PREFIX);
    this.queue.on('error', (error: Error) => deps.log.warn({ err: error }, 'webhook queue error'));
    this.dispatcher = new WebhookDispatcher(deps.db, this.queue);
    this.worker = createWebhookWorker(deps, this.dispatcher, connections.worker);
    this.changes = new MeetingChangeListener(connections.subscriber, deps.config.QUEUE_PREFIX, deps.log);
  }

  async start(): Promise<void> {
    this.stopListening = this.changes.listenToAll((meetingIds) => this.kickSoon(meetingIds));
    await this.changes.start();
    await this.sweep();
    this.sweeps.start();
    void this.worker.run();
  }

  /** Queues every meeting's next due delivery. */
  async sweep(): Promise<void> {
    try {
      await this.dispatcher.kick();
    } catch (error) {
      this.deps.log.warn({ err: error }, 'webhook sweep failed');
    }
  }

  async stop(): Promise<void> {
    await this.sweeps.stop();
    clearTimeout(this.kickTimer);
    this.stopListening?.();
    await this.worker.close();
    await this.changes.close();
    await this.queue.close();
  }

  private kickSoon(meetingIds: number[]): void {
    for (const id of meetingIds) this.due.add(id);
    if (this.kickTimer) return;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = undefined;
      const ids = [...this.due];
      this.due.clear();
      this.dispatcher.kick(ids).catch((error: unknown) => {
        this.deps.log.warn({ err: error }, 'could not queue webhook deliveries; the sweep will');
      });
    }, KICK_DEBOUNCE_MS);
  }
}
