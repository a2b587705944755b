import { type TranscriptionHealthMessage, transcriptionHealthMessage } from '../../shared/contract/events.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { Logger } from '../../shared/infra/logger.js';
import { findMeetingById } from '../../shared/meetings/store.js';
import { insertTransition } from '../../shared/meetings/transitions-store.js';
import { recordTranscriptionHealthEvent } from '../../shared/webhooks/record-events.js';
import { readBoundMessage } from './bound-identity.js';
import type { BatchHandler, DeadLetter } from './stream-consumer.js';

/**
 * The bots' reports of how their transcription keeps up: each becomes a log line an operator can
 * alert on, an event in the meeting's history that keeps its status (`transcription_lagging`,
 * `transcription_caught_up`, `audio_dropped`) and a `meeting.transcription_health` webhook event,
 * both in one transaction. Reports from an old launch session are ignored, as lifecycle events are.
 */
export const HEALTH_EVENT_REASONS = {
  lagging: 'transcription_lagging',
  caught_up: 'transcription_caught_up',
  audio_dropped: 'audio_dropped',
} as const;

function eventDetail(health: TranscriptionHealthMessage): string {
  const behind = `${health.lagSeconds.toFixed(1)} s behind the meeting`;
  if (health.kind === 'caught_up') return `the transcription caught up (${behind})`;
  if (health.kind === 'lagging') return `the transcription is falling behind: ${behind}`;
  const stretch =
    health.droppedFrom && health.droppedTo ? ` from ${health.droppedFrom} to ${health.droppedTo}` : '';
  if (health.droppedBy === 'capture') {
    const lost = health.droppedSeconds === undefined ? '' : ` ${health.droppedSeconds.toFixed(1)} s of`;
    return `the bot's audio capture lost${lost} the meeting's audio${stretch} (its browser was short of CPU)`;
  }
  return `the engine was too far behind (${behind}) and left the audio${stretch} untranscribed`;
}

export function transcriptionHealthHandler(db: Knex, log: Logger): BatchHandler {
  return async (messages) => {
    const deadLetters: DeadLetter[] = [];
    for (const message of messages) {
      const read = readBoundMessage(transcriptionHealthMessage, message);
      if (!read.ok) {
        deadLetters.push({ message, reason: read.reason });
        continue;
      }
      const { value, identity } = read.value;
      const health = { ...value, ...identity };
      const meeting = await findMeetingById(db, health.meetingId);
      if (!meeting) {
        deadLetters.push({ message, reason: `meeting ${health.meetingId} not found` });
        continue;
      }
      if (meeting.launchSessionId !== health.sessionId) continue;
      const fields = {
        meetingId: meeting.id,
        lagSeconds: health.lagSeconds,
        droppedFrom: health.droppedFrom,
        droppedTo: health.droppedTo,
        droppedBy: health.droppedBy,
      };
      if (health.kind === 'caught_up') log.info(fields, 'bot transcription caught up');
      else if (health.kind === 'lagging') log.warn(fields, 'bot transcription is falling behind');
      else log.warn(fields, 'bot dropped audio it could not transcribe in time');
      await db.transaction(async (trx) => {
        await insertTransition(trx, {
          meetingId: meeting.id,
          from: meeting.status,
          to: meeting.status,
          source: 'bot',
          reason: HEALTH_EVENT_REASONS[health.kind],
          detail: eventDetail(health),
        });
        await recordTranscriptionHealthEvent(trx, health);
      });
    }
    return deadLetters;
  };
}
