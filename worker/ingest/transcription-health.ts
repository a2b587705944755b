import { transcriptionHealthMessage } from '../../shared/contract/events.js';
import { parseStreamJson } from '../../shared/contract/stream-codec.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { recordTranscriptionHealthEvent } from '../../shared/webhooks/record-events.js';
import type { BatchHandler, DeadLetter } from './stream-consumer.js';

/**
 * The bots' reports of how their transcription keeps up: each becomes a log line an operator can
 * alert on and a `meeting.transcription_health` webhook event for the meeting's owner. Reports from
 * an old launch session of the meeting are ignored, as lifecycle events are.
 */
export function transcriptionHealthHandler(db: Knex, log: Logger): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    for (const message of messages) {
      const parsed = parseStreamJson(transcriptionHealthMessage, message.data);
      if (!parsed.ok) {
        deadLetters.push({ id: message.id, reason: parsed.reason });
        continue;
      }
      const health = parsed.value;
      const meeting = await findMeetingById(db, health.meetingId);
      if (!meeting) {
        deadLetters.push({ id: message.id, reason: `meeting ${health.meetingId} not found` });
        continue;
      }
      if (meeting.launchSessionId !== health.sessionId) continue;
      const fields = {
        meetingId: meeting.id,
        lagSeconds: health.lagSeconds,
        droppedFrom: health.droppedFrom,
        droppedTo: health.droppedTo,
      };
      if (health.kind === 'caught_up') log.info(fields, 'bot transcription caught up');
      else if (health.kind === 'lagging') log.warn(fields, 'bot transcription is falling behind');
      else log.warn(fields, 'bot dropped audio it could not transcribe in time');
      await recordTranscriptionHealthEvent(db, health);
    }
    return deadLetters;
  };
}
