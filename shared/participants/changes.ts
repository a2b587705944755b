import type { ParticipantEventType } from '../contract/events.js';
import type { ParticipantRecord } from './store.js';

/**
 * Applies one participant message to what is known of that person: the new state, and whether the
 * message changed anything (an event) or repeats what is true already (a relaunched bot's joins for
 * people present, a second report of a stop). Pure: the ingest runs it message by message.
 */
export function applyParticipantChange(
  before: ParticipantRecord | undefined,
  change: { meetingId: number; type: ParticipantEventType; name: string; at: Date },
): { after: ParticipantRecord; applied: boolean } {
  const current: ParticipantRecord = before ?? {
    meetingId: change.meetingId,
    name: change.name,
    firstSeenAt: change.at,
    lastSeenAt: change.at,
    present: false,
    speaking: false,
  };
  const seen = {
    ...current,
    firstSeenAt: new Date(Math.min(current.firstSeenAt.getTime(), change.at.getTime())),
    lastSeenAt: new Date(Math.max(current.lastSeenAt.getTime(), change.at.getTime())),
  };
  switch (change.type) {
    case 'participant.joined':
      return { after: { ...seen, present: true }, applied: !current.present };
    case 'participant.left':
      return { after: { ...seen, present: false, speaking: false }, applied: current.present };
    case 'participant.speech_started':
      return { after: { ...seen, speaking: true }, applied: !current.speaking };
    case 'participant.speech_stopped':
      return { after: { ...seen, speaking: false }, applied: current.speaking };
  }
}
