import type { z } from 'zod';
import type { MeetingRecord } from './store.js';
import type { meetingSchema, updatedMeetingSchema } from '../../api/routes/meetings/schema.js';
import { isoOrNull } from '../infra/timestamps.js';

export function meetingJson(meeting: MeetingRecord): z.infer<typeof meetingSchema> {
  return {
    id: meeting.id,
    platform: meeting.platform,
    native_meeting_id: meeting.nativeMeetingId,
    status: meeting.status,
    start_time: isoOrNull(meeting.startTime),
    end_time: isoOrNull(meeting.endTime),
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
