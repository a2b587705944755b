import { z } from 'zod';
import { PARTICIPANT_EVENT_TYPES } from '../contract/events.js';
import { isoTimestamp } from '../infra/timestamps.js';
import { meetingEventSchema } from '../meetings/wire.js';

/** Participants as the API shows them (responses; also the OpenAPI document's schemas). */

export const participantEventSchema = z
  .object({
    id: z.number().int().describe('Increases in the order events were stored.'),
    type: z.enum(PARTICIPANT_EVENT_TYPES),
    name: z.string().describe("The participant's display name as the meeting page shows it."),
    start: z
      .number()
      .describe("When it happened on the transcript's time line: seconds, as segments' `start`."),
    at: isoTimestamp.describe('When it happened (wall clock).'),
  })
  .meta({ id: 'ParticipantEvent' });

export const meetingParticipantSchema = z
  .object({
    name: z.string(),
    first_seen: isoTimestamp.describe('When a bot first saw them in the call (or speaking).'),
    last_seen: isoTimestamp.describe(
      'When a bot last saw them: when they left, or for those still there the meeting’s end (now while it runs).',
    ),
  })
  .meta({ id: 'MeetingParticipant' });

/** GET /meetings/{id}/events: the status changes and, beside them, the participant events. */
export const meetingEventsSchema = z
  .object({
    meeting_id: z.number().int(),
    events: z.array(meetingEventSchema),
    participant_events: z
      .array(participantEventSchema)
      .describe(
        "Participants joining, leaving, starting and stopping to speak, as the meeting's bots saw them, in the meeting's order (transcript time, then arrival)",
      ),
  })
  .meta({ id: 'MeetingEvents' });
