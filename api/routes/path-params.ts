import { z } from 'zod';
import { PLATFORMS } from '../../shared/contract/platforms.js';

/** `{platform}/{native_meeting_id}` in a path. An unknown platform is a 400 naming the field. */
export const meetingRefParams = z.object({
  platform: z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}` }),
  native_meeting_id: z.string().min(1).max(200, 'is too long'),
});
export type MeetingRefParams = z.infer<typeof meetingRefParams>;
