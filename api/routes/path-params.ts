import { z } from 'zod';
import { PLATFORMS } from '../../shared/contract/platforms.js';
import { error } from '../openapi/responses.js';

/** `{platform}/{native_meeting_id}` in a path. An unknown platform is a 400 naming the field. */
export const meetingRefParams = z.object({
  platform: z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}` }),
  native_meeting_id: z.string().min(1).max(200, 'is too long'),
});
export type MeetingRefParams = z.infer<typeof meetingRefParams>;

/** meetingRefParams as the OpenAPI document shows them. */
export const meetingRefParameters = [
  { name: 'platform', in: 'path', required: true, schema: { type: 'string', enum: [...PLATFORMS] } },
  {
    name: 'native_meeting_id',
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: 'Google Meet: xxx-xxxx-xxx (lowercase letters). Teams: digits.',
  },
];

/** A numeric `{id}` in a path, as the document shows it. */
export const integerIdParameter = { name: 'id', in: 'path', required: true, schema: { type: 'integer' } };

/** The 400 of a route whose path has meetingRefParams. */
export const invalidMeetingRef = error(
  `An unknown platform (\`platform: must be one of ${PLATFORMS.join(', ')}\`) or a meeting id over 200 characters`,
);

/** The 400 of a route whose path has a numeric `{id}`. */
export const invalidIntegerId = error('`id: must be a positive integer`');
