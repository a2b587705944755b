import { z } from 'zod';
import { MEETING_STATUSES } from '../contract/meeting-status.js';
import { PLATFORMS } from '../contract/platforms.js';
import { isoTimestamp } from '../infra/timestamps.js';

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

/** A meeting's members (GET /meetings lists them; GET /meetings/{id} adds its recordings, recordings/wire.ts). */
export const meetingShape = {
  ...meetingHeaderShape,
  bot_container_id: z.string().nullable(),
  data: meetingDataSchema,
  created_at: isoTimestamp,
};

export const meetingSchema = z.object(meetingShape).meta({ id: 'Meeting' });

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
      .describe(
        'Machine-readable, e.g. admission_denied, blocked_by_platform, verification_required, sign_in_required, stopped, container_exited.',
      ),
    detail: z.string().nullable().describe('Human-readable context, e.g. the exit code and last log lines.'),
  })
  .meta({ id: 'MeetingEvent' });
