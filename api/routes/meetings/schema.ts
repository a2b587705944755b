import { z } from 'zod';
import { isoTimestamp } from '../../../shared/infra/timestamps.js';
import { MEETING_STATUSES } from '../../../shared/meetings/status.js';
import { PLATFORMS } from '../../../shared/meetings/platforms.js';

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

export const meetingSchema = z
  .object({
    id: z.number().int(),
    platform: z.enum(PLATFORMS),
    native_meeting_id: z.string(),
    status: z.enum(MEETING_STATUSES),
    start_time: isoTimestamp.nullable(),
    end_time: isoTimestamp.nullable(),
    bot_container_id: z.string().nullable(),
    data: meetingDataSchema,
    created_at: isoTimestamp,
  })
  .meta({ id: 'Meeting' });

export const meetingListSchema = z.object({ meetings: z.array(meetingSchema) }).meta({ id: 'MeetingList' });

export const meetingIdParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a positive integer')
    .transform((value) => Number(value)),
});

export const listMeetingsQuery = z.object({
  limit: z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(1, 'must be at least 1').max(1000, 'must be at most 1000'))
    .optional(),
  offset: z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(0).max(Number.MAX_SAFE_INTEGER))
    .optional(),
});

// A null member removes that member (JSON merge-patch); absent members are left as they are.
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

export const updateMeetingDataRequest = z
  .object(
    {
      data: z
        .object(
          {
            name: nullable(
              z.string({ error: 'must be a string or null' }).max(1000, 'must be at most 1000 characters'),
            ),
            notes: nullable(
              z
                .string({ error: 'must be a string or null' })
                .max(100_000, 'must be at most 100000 characters'),
            ),
            participants: nullable(
              z
                .array(z.string({ error: 'must be a string' }).max(1000), {
                  error: 'must be an array of strings or null',
                })
                .max(1000, 'must have at most 1000 entries'),
            ),
            languages: nullable(
              z
                .array(z.string({ error: 'must be a string' }).max(35), {
                  error: 'must be an array of strings or null',
                })
                .max(100, 'must have at most 100 entries'),
            ),
          },
          { error: 'is required and must be an object' },
        )
        .catchall(z.unknown()),
    },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'UpdateMeetingDataRequest' });

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
