import type { z } from 'zod';
import type { ParticipantEventRecord, ParticipantRecord } from './store.js';
import type { meetingParticipantSchema, participantEventSchema } from './wire.js';

export type ParticipantEventJson = z.infer<typeof participantEventSchema>;
export type MeetingParticipantJson = z.infer<typeof meetingParticipantSchema>;

/** An event as the API shows it (GET …/events, the live stream, the `participant.*` webhooks). */
export function participantEventJson(event: ParticipantEventRecord): ParticipantEventJson {
  return {
    id: event.id,
    type: event.type,
    name: event.name,
    start: event.start,
    at: event.at.toISOString(),
  };
}

/** A participant of GET /meetings/{id}; `until` is the meeting's end, or now while it runs. */
export function meetingParticipantJson(participant: ParticipantRecord, until: Date): MeetingParticipantJson {
  const lastSeen = participant.present && until > participant.lastSeenAt ? until : participant.lastSeenAt;
  return {
    name: participant.name,
    first_seen: participant.firstSeenAt.toISOString(),
    last_seen: lastSeen.toISOString(),
  };
}
