import type { z } from 'zod';
import type { MeetingRecord } from '../../../shared/db/meetings.js';
import type { meetingSchema, updatedMeetingSchema } from './schema.js';

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

export function meetingJson(meeting: MeetingRecord): z.infer<typeof meetingSchema> {
  return {
    id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
    status: meeting.status,
    start_time: iso(meeting.startTime),
    end_time: iso(meeting.endTime),
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
