import { z } from 'zod';
import { isoTimestamp } from '../infra/timestamps.js';
import { recordingSchema } from '../recordings/wire.js';
import { PLATFORMS } from './platforms.js';
import { MEETING_STATUSES } from './status.js';

/** Meetings as the API shows them (responses; also the OpenAPI document's schemas). */

export const meetingDataSchema = z
  .object({
    name: z.string({ error: 'must be a string' }).max(1000, 'must be at most 1000 characters').optional(),
    notes: z
      .string({ error: 'must be a string' })
      .max(100_000, 'must be at most 100000 characters')
      .optional(),
    participants: z
      .array(z.string({ error: 'must be a string' }).max(1000), { error: 'must be an array of strings' })
      .max(1000, 'must have at most 1000 entries')
      .optional(),
    languages: z
      .array(z.string({ error: 'must be a string' }).max(35), { error: 'must be an array of strings' })
      .max(100, 'must have at most 100 entries')
      .optional(),
  })
  .catchall(z.unknown())
  .describe(
    'Free metadata. name, notes, participants and languages are typed; other members are kept as given.',
  );

/** The members every meeting-shaped answer starts with (meetings, transcripts). */
export const meetingHeaderShape = {
  id: z.number().int(),
  platform: z.enum(PLATFORMS),
  native_meeting_id: z.string(),
  status: z.enum(MEETING_STATUSES),
  start_time: isoTimestamp.nullable(),
  end_time: isoTimestamp.nullable(),
};

const meetingShape = {
  ...meetingHeaderShape,
  bot_container_id: z.string().nullable(),
  data: meetingDataSchema,
  created_at: isoTimestamp,
};

export const meetingSchema = z.object(meetingShape).meta({ id: 'Meeting' });

/** GET /meetings/{id}: the meeting with its recordings. */
export const meetingDetailSchema = z
  .object({
    ...meetingShape,
    recordings: z
      .array(recordingSchema)
      .describe(
        'The meeting’s audio recordings, oldest first (empty unless the bot was sent with recording_enabled)',
      ),
  })
  .meta({ id: 'MeetingDetail' });

export const meetingListSchema = z.object({ meetings: z.array(meetingSchema) }).meta({ id: 'MeetingList' });

export const updatedMeetingSchema = z
  .object({
    id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
    status: z.enum(MEETING_STATUSES),
    data: meetingDataSchema,
  })
  .meta({ id: 'UpdatedMeeting' });

export const deletedMeetingsSchema = z
  .object({
    message: z.string(),
    deleted_meeting_ids: z.array(z.number().int()),
  })
  .meta({ id: 'DeletedMeetings' });

export const meetingEventSchema = z
  .object({
    at: isoTimestamp,
    from: z.enum(MEETING_STATUSES).nullable(),
    to: z.enum(MEETING_STATUSES),
    source: z
      .string()
      .describe('Who moved it: api (a user request), bot (the bot reported it), worker (the worker saw it).'),
    reason: z
      .string()
      .nullable()
      .describe('Machine-readable, e.g. admission_denied, stopped, container_exited.'),
    detail: z.string().nullable().describe('Human-readable context, e.g. the exit code and last log lines.'),
  })
  .meta({ id: 'MeetingEvent' });

export const meetingEventsSchema = z
  .object({ meeting_id: z.number().int(), events: z.array(meetingEventSchema) })
  .meta({ id: 'MeetingEvents' });
