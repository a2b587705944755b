import type { Counter } from 'prom-client';
import type { BotJobs } from '../../shared/bots/jobs.js';
import { lifecycleEvent } from '../../shared/contract/events.js';
import { isTerminal } from '../../shared/contract/meeting-status.js';
import { decodeStreamEntry } from '../../shared/contract/stream-codec.js';
import { botEventsStream, botSessionStream } from '../../shared/contract/streams.js';
import type { Config } from '../../shared/infra/config.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { transitionMeeting } from '../../shared/meetings/transitions.js';
import { domainEvents } from '../events/domain-events.js';
import { applyBotEnd, isSignalledStop, joinRetryOf } from '../retries/bot-outcome.js';
import { relaunchOrGiveUp } from '../retries/relaunch.js';
import { type BotRuntime, Labels } from '../runtime/bot-runtime.js';
import type { BotFleet } from './bot-fleet.js';
import { type BotSessionDeps, closeBotSession } from './bot-sessions.js';

export interface ExitHandlerDeps extends BotSessionDeps {
  config: Config;
  runtime: BotRuntime;
  fleet: BotFleet;
  announce: AnnounceChanges;
  /** Queues a refused bot's retry; without it the bot's end is final. */
  jobs?: BotJobs | undefined;
  /** Counts the retries queued and the relaunches (WorkerMetrics), when given. */
  metrics?: { joinRetries?: Pick<Counter, 'inc'>; relaunches?: Pick<Counter, 'inc'> } | undefined;
}

/** How far back in the events stream to look for the bot's own final event. */
const RECENT_EVENTS = 1000;
const LOG_LINES = 20;

/**
 * A bot container exited. If the bot published a final event (it may not be ingested yet), that
 * event decides; otherwise the meeting fails with the exit code and the last log lines
 * (`out_of_memory` when the engine says the memory limit killed it); one the platform ended (an
 * eviction, its node lost) is relaunched (retries/relaunch.ts). Then the container is removed,
 * the bot's Redis credential revoked and its slot freed.
 */
export async function handleBotExit(deps: ExitHandlerDeps, containerId: string): Promise<void> {
  const info = await deps.runtime.inspect(containerId);
  if (!info) {
    deps.fleet.release(containerId);
    return;
  }
  if (info.running) return;
  const meetingId = Number(info.labels[Labels.meetingId]);
  const sessionId = info.labels[Labels.sessionId] ?? '';
  const log = deps.log.child({ meetingId, containerId: containerId.slice(0, 12) });
  try {
    const meeting = Number.isInteger(meetingId) ? await findMeetingById(deps.db, meetingId) : undefined;
    if (meeting && !isTerminal(meeting.status) && meeting.launchSessionId === sessionId) {
      // Created but not started yet (its launch is between create and start, e.g. seen by another
      // replica's reconciler): not an exit. Its launch starts it, or fails the meeting and removes it.
      if (info.exitCode === null) return;
      const final = await findFinalEvent(deps, meetingId, sessionId);
      // Ended by the platform, not by the bot (an eviction, its node lost), even if it said goodbye
      // on the signal: a new bot carries on.
      const disrupted = info.disruption !== undefined && deps.jobs !== undefined;
      if (final && !(disrupted && isSignalledStop(final))) {
        await applyBotEnd({ db: deps.db, log, retry: joinRetryOf(deps) }, meetingId, sessionId, {
          ...final,
          source: 'bot',
        });
        log.info(
          { status: final.status, reason: final.reason, exitCode: info.exitCode },
          'bot exited after its final event',
        );
      } else if (info.disruption && deps.jobs) {
        const outcome = await relaunchOrGiveUp(
          {
            config: deps.config,
            db: deps.db,
            log,
            announce: deps.announce,
            jobs: deps.jobs,
            metrics: { relaunches: deps.metrics?.relaunches ?? { inc: () => {} } },
          },
          { meetingId, sessionId, relaunchCount: meeting.relaunchCount },
          info.disruption,
        );
        log.warn({ outcome, disruption: info.disruption }, 'bot ended by its platform');
      } else {
        const lastLines = (await deps.runtime.logsTail(containerId, LOG_LINES)).trim();
        const cause = info.oomKilled ? 'killed for its memory limit (BOT_MEMORY_MB), ' : '';
        const detail = `${cause}exit code ${info.exitCode ?? 'unknown'}${lastLines ? `; last log lines:\n${lastLines}` : ''}`;
        await transitionMeeting(deps.db, domainEvents, meetingId, {
          to: 'failed',
          source: 'worker',
          reason: info.oomKilled ? 'out_of_memory' : 'container_exited',
          detail: detail.slice(0, 8000),
        });
        log.warn(
          { exitCode: info.exitCode, oomKilled: info.oomKilled },
          'bot container exited without a final event',
        );
      }
      await deps.announce([meetingId]);
    }
    await deps.runtime.remove(containerId);
    if (sessionId) await closeBotSession(deps, sessionId);
  } finally {
    deps.fleet.release(containerId);
  }
}

async function findFinalEvent(
  deps: ExitHandlerDeps,
  meetingId: number,
  sessionId: string,
): Promise<{ status: 'completed' | 'failed'; reason: string; detail: string | null } | undefined> {
  const prefix = deps.config.QUEUE_PREFIX;
  // The bot's own stream holds only its events; a bot of an older worker wrote to the shared one.
  const own = await deps.redis.xrevrange(
    botSessionStream(prefix, sessionId, 'events'),
    '+',
    '-',
    'COUNT',
    50,
  );
  const entries =
    own.length > 0
      ? own
      : await deps.redis.xrevrange(botEventsStream(prefix), '+', '-', 'COUNT', RECENT_EVENTS);
  for (const [, fields] of entries) {
    const parsed = decodeStreamEntry(lifecycleEvent, fields);
    if (!parsed.ok) continue;
    const event = parsed.value;
    if (event.meetingId !== meetingId || event.sessionId !== sessionId) continue;
    if (event.status === 'completed' || event.status === 'failed') {
      return { status: event.status, reason: event.reason, detail: event.detail ?? null };
    }
  }
  return undefined;
}
