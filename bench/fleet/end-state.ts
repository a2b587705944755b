/**
 * What is left once a fleet run's bots are gone: the bot hosts' final counters, the meetings by
 * status and why some failed, the dead letters, and the webhook deliveries (by status, those tried
 * more than once, the slowest).
 */
import type { HostStats } from './host-protocol.js';
import {
  deliveriesByStatus,
  failedReasons,
  meetingsByStatus,
  retriedDeliveries,
  slowestDeliveries,
} from './postgres-readings.js';
import { deadLetters } from './redis-readings.js';
import { readHostStats } from './services.js';
import type { Services } from './start-services.js';
import type { Stores } from './start-stores.js';

export type EndState = Awaited<ReturnType<typeof readEndState>>;

export async function readEndState(stores: Stores, services: Services) {
  const { db } = stores;
  const hosts: HostStats[] = readHostStats(services.workers);
  const byStatus = await meetingsByStatus(db);
  const failed = await failedReasons(db);
  const letters = await deadLetters(stores.control, services.prefix);
  const deliveries = await deliveriesByStatus(db);
  const retried = await retriedDeliveries(db);
  const slowest = await slowestDeliveries(db);
  return { hosts, byStatus, failedReasons: failed, deadLetters: letters, deliveries, retried, slowest };
}
