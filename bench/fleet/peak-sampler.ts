/**
 * What peaks while the fleet runs, sampled every 5 s from the start of the ramp to the end of the
 * stop: Redis' clients, blocked clients, memory and rejected connections, the bots' ACL users,
 * Postgres' connections, the launch, control and webhook queues' depths, pending webhook deliveries.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { CONTROL_QUEUE, LAUNCH_QUEUE, WEBHOOK_QUEUE } from '../../shared/contract/jobs.js';
import type { Cleanups } from './cleanups.js';
import { clientBackends, pendingDeliveries } from './postgres-readings.js';
import { botAclUsers } from './redis-readings.js';
import type { RunLog } from './run-log.js';
import type { Stores } from './start-stores.js';

export interface Peaks {
  redisClients: number;
  redisBlocked: number;
  redisMemoryMiB: number;
  /** Not a peak: the count so far. */
  redisRejected: number;
  aclUsers: number;
  pgConnections: number;
  /** Waiting, active, delayed and prioritized jobs. */
  launchQueue: number;
  controlQueue: number;
  webhookQueue: number;
  pendingDeliveries: number;
}

export interface PeakSampler {
  readonly peaks: Peaks;
  /** One sample now, its failure thrown. */
  sample(): Promise<void>;
  /** Ends the sampling, once the sample under way is done. */
  stop(): Promise<void>;
}

export function startPeakSampler(
  stores: Stores,
  queuePrefix: string,
  cleanups: Cleanups,
  log: RunLog,
): PeakSampler {
  const { control, db } = stores;
  const queues = [LAUNCH_QUEUE, CONTROL_QUEUE, WEBHOOK_QUEUE].map(
    (name) => new Queue(name, { connection: control, prefix: queuePrefix }),
  );
  for (const queue of queues) queue.on('error', () => undefined);
  cleanups.add('queues', () => Promise.all(queues.map((queue) => queue.close())));
  const peaks: Peaks = {
    redisClients: 0,
    redisBlocked: 0,
    redisMemoryMiB: 0,
    redisRejected: 0,
    aclUsers: 0,
    pgConnections: 0,
    launchQueue: 0,
    controlQueue: 0,
    webhookQueue: 0,
    pendingDeliveries: 0,
  };
  const sample = async () => {
    const info = await stores.redisInfo();
    peaks.redisClients = Math.max(peaks.redisClients, Number(info.connected_clients));
    peaks.redisBlocked = Math.max(peaks.redisBlocked, Number(info.blocked_clients));
    peaks.redisMemoryMiB = Math.max(peaks.redisMemoryMiB, Number(info.used_memory) / 2 ** 20);
    peaks.redisRejected = Number(info.rejected_connections);
    peaks.aclUsers = Math.max(peaks.aclUsers, await botAclUsers(control, queuePrefix));
    peaks.pgConnections = Math.max(peaks.pgConnections, await clientBackends(db));
    const depths = await Promise.all(
      queues.map(async (queue) => {
        const counts = await queue.getJobCounts('wait', 'active', 'delayed', 'prioritized');
        return Object.values(counts).reduce((sum, value) => sum + value, 0);
      }),
    );
    peaks.launchQueue = Math.max(peaks.launchQueue, depths[0]!);
    peaks.controlQueue = Math.max(peaks.controlQueue, depths[1]!);
    peaks.webhookQueue = Math.max(peaks.webhookQueue, depths[2]!);
    peaks.pendingDeliveries = Math.max(peaks.pendingDeliveries, await pendingDeliveries(db));
  };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      await sample().catch((error: unknown) => log(`sample failed: ${(error as Error).message}`));
      await sleep(5000);
    }
  })();
  const stop = async () => {
    sampling = false;
    await sampler;
  };
  cleanups.add('sampler', stop);
  return { peaks, sample, stop };
}
