import { z } from 'zod';
import {
  DEFAULT_FEED_MARKER,
  FEED_EVENT_CHOICES,
  type FeedChanges,
} from '../../../shared/calendars/store.js';
import { botName } from '../../../shared/contract/commands.js';
import { MAX_DB_INTEGER } from '../../../shared/infra/knex.js';

const feedUrl = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(2048, 'must be at most 2048 characters')
  .describe(
    "The feed's iCalendar (ICS) URL, https; private, loopback and link-local addresses are refused unless the operator allows them (the webhook address rules)",
  );
const events = z
  .enum(FEED_EVENT_CHOICES, { error: `must be one of ${FEED_EVENT_CHOICES.join(', ')}` })
  .describe('all: every event with a meeting link; marked: only those with the marker word');
const marker = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .regex(/^\S+$/, 'must be one word, without spaces')
  .describe(
    `The word an event's title, description or location must carry with events=marked (case-insensitive, not inside a longer word); default ${DEFAULT_FEED_MARKER}`,
  );

export const createCalendarFeedRequest = z
  .object(
    {
      url: feedUrl,
      bot_name: botName
        .optional()
        .describe("The bots' name in the meetings; the deployment's default when omitted"),
      events: events.optional().describe('Default all'),
      marker: marker.optional(),
    },
    { error: 'must be a JSON object' },
  )
  .meta({ id: 'CreateCalendarFeedRequest' });
export type CreateCalendarFeedRequest = z.infer<typeof createCalendarFeedRequest>;

export const updateCalendarFeedRequest = z
  .object(
    {
      url: feedUrl.optional(),
      bot_name: botName.nullable().optional().describe("null: the deployment's default"),
      events: events.optional(),
      marker: marker.optional(),
    },
    { error: 'must be a JSON object' },
  )
  .refine(
    (body) =>
      body.url !== undefined ||
      body.bot_name !== undefined ||
      body.events !== undefined ||
      body.marker !== undefined,
    { error: 'must contain at least one of url, bot_name, events, marker' },
  )
  .meta({ id: 'UpdateCalendarFeedRequest' });
export type UpdateCalendarFeedRequest = z.infer<typeof updateCalendarFeedRequest>;

export function feedChangesOf(body: UpdateCalendarFeedRequest): FeedChanges {
  return { url: body.url, botName: body.bot_name, events: body.events, marker: body.marker };
}

/** `{id}`: a number beyond any row's id names nothing (404), never a database error. */
export const calendarFeedIdParams = z.object({
  id: z
    .string()
    .regex(/^[0-9]{1,15}$/, 'must be a positive integer')
    .transform((value) => (Number(value) > MAX_DB_INTEGER ? 0 : Number(value))),
});
