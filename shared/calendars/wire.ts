import { z } from 'zod';
import { isoTimestamp } from '../infra/timestamps.js';
import { FEED_EVENT_CHOICES } from './store.js';

/** Calendar feeds as the API shows them (responses; also the OpenAPI document's schemas). */

export const feedPollSchema = z
  .object({
    at: isoTimestamp,
    ok: z.boolean().describe('true when the feed was fetched and read'),
    error: z.string().nullable().describe('Why the feed could not be fetched or read (ok false)'),
    occurrences: z
      .number()
      .int()
      .describe('Occurrences within the horizon with a meeting link that the feed’s choice takes'),
    scheduled: z.number().int().describe('Bots this poll scheduled'),
    moved: z.number().int().describe('Waiting bots this poll moved to a new time'),
    cancelled: z.number().int().describe('Waiting bots this poll cancelled'),
    notes: z
      .array(z.object({ uid: z.string(), reason: z.string() }))
      .describe('Events left out and why: an unknown time zone, a link the service cannot follow'),
  })
  .meta({ id: 'CalendarFeedPoll' });

export const calendarFeedSchema = z
  .object({
    id: z.number().int(),
    url: z.string(),
    bot_name: z.string().nullable().describe('The bots’ name; null: the deployment’s default'),
    events: z.enum(FEED_EVENT_CHOICES),
    marker: z.string(),
    created_at: isoTimestamp,
    updated_at: isoTimestamp,
    next_poll_at: isoTimestamp,
    last_poll: feedPollSchema.nullable().describe('null until the feed is first polled'),
  })
  .meta({ id: 'CalendarFeed' });

export const calendarFeedListSchema = z
  .object({ calendar_feeds: z.array(calendarFeedSchema) })
  .meta({ id: 'CalendarFeedList' });
