/**
 * The end of a fleet run: every live meeting stopped through DELETE /bots, then a wait (at most
 * 90 s) until every bot is gone (its Redis user is deleted once its exit has been handled,
 * worker/fleet/exit-handler.ts), then, with --webhooks on, until no delivery waits (at most 60 s):
 * the meetings' last events (their end, their recordings) go out as webhooks.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { callApi, failureKey } from './api-client.js';
import type { FleetUser } from './create-users.js';
import { type Meeting, PLATFORM } from './fleet-meetings.js';
import { inParallel } from './in-parallel.js';
import type { FleetOptions } from './options.js';
import { pendingDeliveries } from './postgres-readings.js';
import { botAclUsers } from './redis-readings.js';
import type { Services } from './start-services.js';
import type { Stores } from './start-stores.js';

export interface Stop {
  /** From the first DELETE until every bot was gone (or the wait gave up). */
  seconds: number;
  /** Bots with a Redis user still, at the end of the wait. */
  botsLeft: number;
  /** The failed DELETEs by status and the start of their answer. */
  failures: Record<string, number>;
  /** From the first DELETE until no webhook delivery waited (or the wait gave up). */
  webhooksDrainedSeconds: number;
}

export async function stopAndDrain(
  options: FleetOptions,
  stores: Stores,
  services: Services,
  users: FleetUser[],
  live: Meeting[],
): Promise<Stop> {
  const { apis, prefix } = services;
  const stopStart = Date.now();
  const failures: Record<string, number> = {};
  await inParallel(live, options.postConcurrency, async (meeting, index) => {
    const answer = await callApi(
      apis[index % options.apis]!.url,
      'DELETE',
      `/bots/${PLATFORM}/${meeting.nativeId}`,
      { key: users[meeting.user]!.key },
    );
    if (answer.status !== 202) {
      const why = failureKey(answer);
      failures[why] = (failures[why] ?? 0) + 1;
    }
  });
  let botsLeft = Number.NaN;
  const stopDeadline = Date.now() + 90_000;
  while (Date.now() < stopDeadline) {
    botsLeft = await botAclUsers(stores.control, prefix);
    if (botsLeft === 0) break;
    await sleep(500);
  }
  const seconds = (Date.now() - stopStart) / 1000;
  const drainDeadline = Date.now() + 60_000;
  while (options.webhooks && (await pendingDeliveries(stores.db)) > 0 && Date.now() < drainDeadline)
    await sleep(500);
  const webhooksDrainedSeconds = (Date.now() - stopStart) / 1000;
  // The hosts write their counters every few seconds: 5.5 s after the last bot went, they say so.
  await sleep(Math.max(0, 5500 - (Date.now() - stopStart - seconds * 1000)));
  return { seconds, botsLeft, failures, webhooksDrainedSeconds };
}
