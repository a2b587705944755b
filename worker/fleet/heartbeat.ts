import { PeriodicLoop } from '../../shared/infra/background-loop.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { recordHeartbeat } from '../../shared/workers/store.js';
import type { BotFleet } from './bot-fleet.js';

/**
 * Records in Postgres, every interval and at once whenever its bots change, that this worker is
 * alive, which Docker host it runs bots on and how many of its slots are free. Other workers read it
 * to place launches by free capacity and to notice a lost host.
 */
export class WorkerHeartbeat {
  private readonly beats: PeriodicLoop;
  private writing: Promise<void> | undefined;
  private again = false;
  private accepting = true;
  private readonly onFleetChange = () => void this.beat();

  constructor(
    private readonly deps: {
      db: Knex;
      fleet: BotFleet;
      log: Logger;
      workerId: string;
      dockerHost: string;
      intervalSeconds: number;
    },
  ) {
    this.beats = new PeriodicLoop({
      intervalMs: deps.intervalSeconds * 1000,
      // Not awaited: a beat due during a slow write is written right after it (beat() coalesces),
      // not a whole interval later. stop() waits for the write itself.
      task: async () => void this.beat(),
      // write() logs its own failures after the first heartbeat: a beat never rejects.
      onError: (error) => deps.log.warn({ err: error }, 'could not record the heartbeat'),
    });
  }

  /** The first heartbeat (marks the worker started), then one per interval. */
  async start(): Promise<void> {
    await this.write(true);
    this.deps.fleet.on('changed', this.onFleetChange);
    this.beats.start();
  }

  /** The worker is shutting down: it stays alive for its bots but asks for no more launches. */
  async drain(): Promise<void> {
    this.accepting = false;
    await this.beat();
  }

  async stop(): Promise<void> {
    await this.beats.stop();
    this.deps.fleet.off('changed', this.onFleetChange);
    await this.writing;
  }

  /** One write at a time; a change during a write is written right after it. */
  beat(): Promise<void> {
    if (this.writing) {
      this.again = true;
      return this.writing;
    }
    this.writing = this.write(false).finally(() => {
      this.writing = undefined;
      if (this.again) {
        this.again = false;
        void this.beat();
      }
    });
    return this.writing;
  }

  private async write(started: boolean): Promise<void> {
    try {
      await recordHeartbeat(
        this.deps.db,
        {
          workerId: this.deps.workerId,
          dockerHost: this.deps.dockerHost,
          slots: this.deps.fleet.slots,
          bots: this.deps.fleet.used,
          // A worker whose bots lag takes no launches until they catch up: others get them.
          accepting:
            this.accepting && this.deps.fleet.laggingBots === 0 && this.deps.fleet.settlingBots === 0,
        },
        started,
      );
    } catch (error) {
      if (started) throw error;
      this.deps.log.warn({ err: error }, 'could not record the heartbeat');
    }
  }
}
