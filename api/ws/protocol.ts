import { z } from 'zod';
import { PLATFORMS } from '../../shared/contract/platforms.js';
import { MAX_DB_INTEGER } from '../../shared/infra/knex.js';
import { parseCursor } from '../live/cursor.js';

/**
 * What a client sends on `/ws`: JSON text frames with an `action`, as Vexa's `/ws` takes them
 * (docs/api.md, "Live feed over WebSocket").
 */

/** A meeting named in a subscribe or unsubscribe: by its id, or as Vexa names it (platform + native id). */
export const meetingSelector = z
  .object({
    meeting_id: z
      .number({ error: 'must be a positive integer' })
      .int('must be a positive integer')
      .min(1, 'must be a positive integer')
      .max(MAX_DB_INTEGER, `must be at most ${MAX_DB_INTEGER}`)
      .optional(),
    platform: z.enum(PLATFORMS, { error: `must be one of ${PLATFORMS.join(', ')}` }).optional(),
    native_id: z
      .string({ error: 'must be a string' })
      .min(1, 'must not be empty')
      .max(200, 'is too long')
      .optional(),
    /** Where the client stands: the `cursor` of the last data frame it got for this meeting. */
    cursor: z
      .string({ error: 'must be a string' })
      .refine((text) => parseCursor(text) !== undefined, {
        error: 'must be the cursor of a data frame (<status>-<segment>-<chat>-<participant>, digits)',
      })
      .optional(),
  })
  .superRefine((selector, context) => {
    if (selector.meeting_id !== undefined) return;
    if (selector.platform === undefined)
      context.addIssue({ code: 'custom', path: ['platform'], message: 'is required (or give meeting_id)' });
    if (selector.native_id === undefined)
      context.addIssue({ code: 'custom', path: ['native_id'], message: 'is required (or give meeting_id)' });
  });
export type MeetingSelector = z.infer<typeof meetingSelector>;

/** The actions; anything else is `unknown_action`. */
export const ACTIONS = ['auth', 'subscribe', 'unsubscribe', 'ping'] as const;
export type Action = (typeof ACTIONS)[number];

export const authMessage = z.object({
  action: z.literal('auth'),
  api_key: z.string({ error: 'is required (a string)' }).min(1, 'must not be empty'),
});

/** subscribe and unsubscribe: at most a socket's subscription limit of meetings at once. */
export function meetingsMessage(action: 'subscribe' | 'unsubscribe', maxMeetings: number) {
  return z.object({
    action: z.literal(action),
    meetings: z
      .array(meetingSelector, { error: 'must be a list of meetings' })
      .min(1, 'must name at least one meeting')
      .max(maxMeetings, `names at most ${maxMeetings} meetings (this socket's subscription limit)`),
  });
}

/**
 * The error codes of `{"type": "error", "error": <code>, "details": <text>}` frames. Vexa's codes
 * where it has one (missing_api_key, invalid_api_key, invalid_json, unknown_action,
 * invalid_subscribe_payload, invalid_unsubscribe_payload), ours besides.
 */
export type ErrorCode =
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'invalid_json'
  | 'unknown_action'
  | 'invalid_auth_payload'
  | 'invalid_subscribe_payload'
  | 'invalid_unsubscribe_payload'
  | 'already_authenticated'
  | 'meeting_not_found'
  | 'not_subscribed'
  | 'too_many_subscriptions'
  | 'too_many_sockets'
  | 'too_many_invalid_messages'
  | 'rate_limited'
  | 'unavailable'
  | 'internal_error';

/**
 * Close codes besides the standard ones (1001 going away on shutdown, 1008 policy violation, 1009
 * message too big, 1011 internal error, 1013 try again later): 4401 and 4429 mirror HTTP's 401
 * and 429 (Vexa closes with 4401 too).
 */
export const CloseCodes = {
  goingAway: 1001,
  policyViolation: 1008,
  internalError: 1011,
  tryAgainLater: 1013,
  unauthorized: 4401,
  tooManyRequests: 4429,
} as const;
