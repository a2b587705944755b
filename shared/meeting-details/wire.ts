import { z } from 'zod';
import { meetingShape } from '../meetings/wire.js';
import { meetingParticipantSchema } from '../participants/wire.js';
import { recordingSchema } from '../recordings/wire.js';

/** GET /meetings/{id}: the meeting with its recordings and participants (here, above all three). */
export const meetingDetailSchema = z
  .object({
    ...meetingShape,
    recordings: z
      .array(recordingSchema)
      .describe(
        'The meeting’s audio recordings, oldest first (empty unless the bot was sent with recording_enabled)',
      ),
    participants: z
      .array(meetingParticipantSchema)
      .describe(
        'Who its bots saw in the call (the bots themselves left out), in the order first seen; see GET /meetings/{id}/events for when each joined, left and spoke',
      ),
  })
  .meta({ id: 'MeetingDetail' });
