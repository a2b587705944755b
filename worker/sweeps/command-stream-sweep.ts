import { deleteCommandStreams, meetingsWithCommandStreams } from '../../shared/bots/command-channel.js';
import { listBotSessions } from '../../shared/bots/session-registry.js';
import { speechQueueKey } from '../../shared/bots/speech-queue.js';
import { isTerminal } from '../../shared/contract/meeting-status.js';
import { findMeetingsProgress } from '../../shared/meetings/store.js';
import type { WorkerDeps } from '../worker-deps.js';

/** Meetings looked at per sweep, oldest command first: the rest wait for the next sweep. */
const SWEEP_BATCH = 500;

/**
 * Deletes the command streams (and speech estimates) of meetings that ended and whose bot is gone:
 * the meeting is terminal (or deleted) and no live session of the registry belongs to it. A stopped
 * meeting is `completed` while its bot is still reading the `leave`, so its stream is kept until the
 * bot's session is closed (its container gone). A command sent after the deletion (a late stop job's
 * `leave`) makes a new stream, listed again and deleted by a later sweep. Returns how many went.
 */
export async function sweepCommandStreams(
  deps: Pick<WorkerDeps, 'config' | 'db' | 'redis' | 'log'>,
): Promise<number> {
  const prefix = deps.config.QUEUE_PREFIX;
  const meetingIds = await meetingsWithCommandStreams(deps.redis, prefix, SWEEP_BATCH);
  if (meetingIds.length === 0) return 0;
  const progress = await findMeetingsProgress(deps.db, meetingIds);
  const withLiveBot = new Set<number>();
  for (const entry of (await listBotSessions(deps.redis, prefix)).values()) {
    if (entry.endedAt === undefined) withLiveBot.add(entry.meetingId);
  }
  const ended = meetingIds.filter((id) => {
    const meeting = progress.get(id);
    return (!meeting || isTerminal(meeting.status)) && !withLiveBot.has(id);
  });
  await deleteCommandStreams(deps.redis, prefix, ended, (id) => [speechQueueKey(prefix, id)]);
  if (ended.length > 0)
    deps.log.debug({ meetings: ended.length }, 'deleted the command streams of ended meetings');
  return ended.length;
}
