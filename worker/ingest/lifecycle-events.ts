import { lifecycleEvent } from '../../shared/contract/events.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { AnnounceChanges } from '../../shared/meetings/changes.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { recordRejoin, transitionMeeting } from '../../shared/meetings/transitions.js';
import { domainEvents } from '../events/domain-events.js';
import { applyBotEnd, type BotOutcomeDeps, isSignalledStop } from '../retries/bot-outcome.js';
import { readBoundMessage } from './bound-identity.js';
import type { BatchHandler, DeadLetter } from './stream-consumer.js';

/**
 * Moves meetings forward from the bots' lifecycle events, in stream order, with conditional
 * updates: a late or repeated event is a no-op, terminal states are final, and events from
 * another launch session than the meeting's own are ignored. The meeting is the one of the stream
 * the event came through.
 */
export function lifecycleEventHandler(
  db: Knex,
  log: Logger,
  announce: AnnounceChanges,
  retry?: BotOutcomeDeps['retry'],
  signalledStopsAwaitExit = false,
): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    const changed = new Set<number>();
    for (const message of messages) {
      const read = readBoundMessage(lifecycleEvent, message);
      if (!read.ok) {
        deadLetters.push({ message, reason: read.reason });
        continue;
      }
      const { value: event, identity } = read.value;
      const { meetingId, sessionId } = identity;
      const meeting = await findMeetingById(db, meetingId);
      if (!meeting) {
        deadLetters.push({ message, reason: `meeting ${meetingId} not found` });
        continue;
      }
      if (meeting.launchSessionId !== sessionId) {
        log.warn({ meetingId: meeting.id, sessionId }, 'event from another launch session ignored');
        continue;
      }
      if (event.status === 'active' && meeting.status === 'active' && meeting.relaunchCount > 0) {
        if (await recordRejoin(db, domainEvents, meeting, new Date(event.at))) {
          changed.add(meeting.id);
          log.info({ meetingId: meeting.id, relaunch: meeting.relaunchCount }, 'relaunched bot rejoined');
        }
        continue;
      }
      if (signalledStopsAwaitExit && isSignalledStop(event)) {
        // The exit handler applies it, or relaunches the bot if the platform ended it (fleet/exit-handler.ts).
        log.info({ meetingId: meeting.id }, 'bot stopped on a signal: its exit decides');
        continue;
      }
      if (event.status === 'completed' || event.status === 'failed') {
        const applied = await applyBotEnd({ db, log, retry }, meeting.id, sessionId, {
          status: event.status,
          source: 'bot',
          reason: event.reason,
          detail: event.detail ?? null,
        });
        if (applied !== 'ignored') changed.add(meeting.id);
        log.info({ meetingId: meeting.id, status: event.status, reason: event.reason, applied }, 'bot ended');
        continue;
      }
      const moved = await transitionMeeting(db, domainEvents, meeting.id, {
        to: event.status,
        source: 'bot',
        reason: null,
      });
      if (moved) {
        changed.add(meeting.id);
        log.info({ meetingId: meeting.id, from: moved.from, to: event.status }, 'meeting status changed');
      } else {
        log.debug(
          { meetingId: meeting.id, status: event.status },
          'event did not move the meeting (late or repeated)',
        );
      }
    }
    await announce(changed);
    return deadLetters;
  };
}
