import type { z } from 'zod';
import { meetingJson } from '../meetings/serialize.js';
import type { MeetingRecord } from '../meetings/store.js';
import { meetingParticipantJson } from '../participants/serialize.js';
import type { ParticipantRecord } from '../participants/store.js';
import type { MediaLinks } from '../recordings/media-links.js';
import { recordingJson } from '../recordings/serialize.js';
import type { RecordingRecord } from '../recordings/store.js';
import type { meetingDetailSchema } from './wire.js';

/** GET /meetings/{id}; `links` signs the recordings' media URLs (see recordingMediaUrl). */
export function meetingDetailJson(
  meeting: MeetingRecord,
  recordings: readonly RecordingRecord[],
  links: MediaLinks,
  participants: readonly ParticipantRecord[],
  now = new Date(),
): z.infer<typeof meetingDetailSchema> {
  const until = meeting.endTime ?? now;
  return {
    ...meetingJson(meeting),
    recordings: recordings.map((recording) => recordingJson(recording, links)),
    participants: participants.map((participant) => meetingParticipantJson(participant, until)),
  };
}
