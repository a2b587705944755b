import { announceMeetingChanges } from '../shared/meetings/changes.js';
import type { WorkerDeps } from './worker-deps.js';

/** Tells live streams that these meetings changed (after the commit). Never fails the caller. */
export async function announce(
  deps: Pick<WorkerDeps, 'redis' | 'log'> & { config: Pick<WorkerDeps['config'], 'QUEUE_PREFIX'> },
  meetingIds: Iterable<number>,
): Promise<void> {
  try {
    await announceMeetingChanges(deps.redis, deps.config.QUEUE_PREFIX, meetingIds);
  } catch (error) {
    deps.log.warn({ err: error }, 'could not announce meeting changes');
  }
}
