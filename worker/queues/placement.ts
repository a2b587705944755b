import type { Knex } from '../../shared/infra/knex.js';
import { roomierWorkerExists } from '../../shared/workers/store.js';
import type { BotFleet } from '../fleet/bot-fleet.js';

/** How long one launch may be left for roomier workers before this one takes it anyway. */
const MAX_DEFERRAL_MS = 5000;
/** A heartbeat older than this many intervals doesn't count: that worker may be gone. */
const FRESH_HEARTBEATS = 3;

/**
 * Spreads launches by free capacity: a worker that holds a launch while another live worker has more
 * free slots leaves it to that one for a moment (the queue hands it to whichever fetches next). A
 * launch is never left waiting long: after MAX_DEFERRAL_MS the worker that holds it takes it.
 */
export class LaunchPlacement {
  private readonly firstDeferred = new Map<string, number>();

  constructor(
    private readonly deps: { db: Knex; fleet: BotFleet; workerId: string; heartbeatSeconds: number },
  ) {}

  /** Call while holding a reserved slot for the launch: true means leave it for a roomier worker. */
  async shouldDefer(jobId: string): Promise<boolean> {
    const since = this.firstDeferred.get(jobId);
    if (since !== undefined && Date.now() - since > MAX_DEFERRAL_MS) {
      this.firstDeferred.delete(jobId);
      return false;
    }
    // Free slots counting the one reserved for this launch.
    const free = this.deps.fleet.slots - this.deps.fleet.used + 1;
    const roomier = await roomierWorkerExists(
      this.deps.db,
      { workerId: this.deps.workerId, free },
      this.deps.heartbeatSeconds * FRESH_HEARTBEATS,
    ).catch(() => false);
    if (!roomier) {
      this.firstDeferred.delete(jobId);
      return false;
    }
    if (since === undefined) this.firstDeferred.set(jobId, Date.now());
    this.forgetOld();
    return true;
  }

  private forgetOld(): void {
    const cutoff = Date.now() - 10 * MAX_DEFERRAL_MS;
    for (const [jobId, at] of this.firstDeferred) if (at < cutoff) this.firstDeferred.delete(jobId);
  }
}
