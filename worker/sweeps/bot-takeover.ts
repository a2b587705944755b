import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { takeOverLaunch } from '../../shared/meetings/launch-store.js';
import type { OrphanedMeeting } from '../../shared/workers/store.js';
import type { BotFleet } from '../fleet/bot-fleet.js';
import { type BotRuntime, Labels } from '../runtime/bot-runtime.js';

export interface TakeOverDeps {
  db: Knex;
  log: Logger;
  runtime: BotRuntime;
  fleet: BotFleet;
  workerId: string;
  /** Where this worker's bots run; only a dead worker's bots on the same host are taken over. */
  hostName: string;
  /** The labels of this deployment's bots (runtime/bot-launch-spec.ts, deploymentLabels). */
  deploymentLabels: Record<string, string>;
}

/**
 * A dead worker's bot that still runs, where every worker sees the same bots (a cluster's namespace):
 * this worker takes it over, in Postgres first (a compare-and-set: one worker wins), then on the
 * bot's labels, so its exit comes to this worker's watch, then in its fleet. A relabel that failed is
 * done again by the reconciler (it relabels a bot whose meeting names this worker).
 */
export async function takeOverBot(deps: TakeOverDeps, orphan: OrphanedMeeting): Promise<boolean> {
  if (!deps.runtime.sharedAmongWorkers || !deps.runtime.relabel) return false;
  if (orphan.dockerHost !== deps.hostName) return false;
  const [bot] = await deps.runtime.list({ ...deps.deploymentLabels, [Labels.sessionId]: orphan.sessionId });
  if (!bot?.running) return false;
  const taken = await takeOverLaunch(
    deps.db,
    orphan.meetingId,
    orphan.sessionId,
    orphan.workerId,
    deps.workerId,
  );
  if (!taken) return false;
  deps.fleet.adopt({ containerId: bot.id, meetingId: orphan.meetingId, sessionId: orphan.sessionId });
  await deps.runtime.relabel(bot.id, { [Labels.workerId]: deps.workerId });
  deps.log.warn(
    { meetingId: orphan.meetingId, bot: bot.id, deadWorker: orphan.workerId },
    "took over a dead worker's running bot",
  );
  return true;
}
