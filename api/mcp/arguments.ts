import { z } from 'zod';
import { PLATFORMS } from '../../shared/contract/platforms.js';
import { meetingRefParams } from '../routes/path-params.js';
import type { PageSizes } from '../routes/query-params.js';

/** A meeting by its platform and native id, as in the REST paths (`/bots/{platform}/{native_meeting_id}`). */
export const meetingRefShape = {
  platform: meetingRefParams.shape.platform.describe(PLATFORMS.join(' or ')),
  native_meeting_id: meetingRefParams.shape.native_meeting_id.describe(
    'Google Meet: xxx-xxxx-xxx (lowercase letters). Teams: digits. parse_meeting_link reads it from a link.',
  ),
};

/** A meeting by its id (`/meetings/{id}`): the same range the path accepts. */
export const meetingIdShape = {
  meeting_id: z
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .min(1, 'must be a positive integer')
    .max(999_999_999_999_999, 'must be a positive integer')
    .describe("The meeting's id (`id` in list_meetings and send_bot's answers)"),
};

/** `limit` and `offset` of a listing, with the deployment's page sizes (as `?limit=&offset=`). */
export function pageShape(sizes: PageSizes) {
  return {
    limit: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(sizes.maxLimit, `must be at most ${sizes.maxLimit}`)
      .default(sizes.defaultLimit)
      .describe(`Page size (default ${sizes.defaultLimit}, at most ${sizes.maxLimit})`),
    offset: z
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0, 'must be at least 0')
      .max(Number.MAX_SAFE_INTEGER, `must be at most ${Number.MAX_SAFE_INTEGER}`)
      .default(0)
      .describe('How many to skip'),
  };
}
