import type { z } from 'zod';
import { isoOrNull } from '../infra/timestamps.js';
import type { MeetingRecord } from './store.js';
import type { TransitionRecord } from './transitions-store.js';
import type { meetingEventSchema, meetingHeaderShape, meetingSchema, updatedMeetingSchema } from './wire.js';

/** The members every meeting-shaped answer starts with (meetings, transcripts). */
export function meetingHeaderJson(meeting: MeetingRecord): z.infer<z.ZodObject<typeof meetingHeaderShape>> {
  return {
    id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
    status: meeting.status,
    start_time: isoOrNull(meeting.startTime),
    end_time: isoOrNull(meeting.endTime),
  };
}

export function meetingJson(meeting: MeetingRecord): z.infer<typeof meetingSchema> {
  return {
    ...meetingHeaderJson(meeting),
    bot_container_id: meeting.botContainerId,
    data: meeting.data,
    created_at: meeting.createdAt.toISOString(),
  };
}

export function updatedMeetingJson(meeting: MeetingRecord): z.infer<typeof updatedMeetingSchema> {
  return {
    id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
    status: meeting.status,
    data: meeting.data,
  };
}

export function meetingEventJson(transition: TransitionRecord): z.infer<typeof meetingEventSchema> {
  return {
    at: transition.createdAt.toISOString(),
    from: transition.from,
    to: transition.to,
    source: transition.source,
    reason: transition.reason,
    detail: transition.detail,
  };
}

/** A status change as the live transcript stream sends it (`status` events). */
export function statusEventJson(transition: TransitionRecord) {
  return {
    status: transition.to,
    previous_status: transition.from,
    source: transition.source,
    reason: transition.reason,
    at: transition.createdAt.toISOString(),
  };
}
