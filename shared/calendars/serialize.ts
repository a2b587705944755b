import type { z } from 'zod';
import type { CalendarFeedRecord } from './store.js';
import type { calendarFeedSchema } from './wire.js';

export function calendarFeedJson(feed: CalendarFeedRecord): z.infer<typeof calendarFeedSchema> {
  const poll = feed.lastPoll;
  return {
    id: feed.id,
    url: feed.url,
    bot_name: feed.botName,
    events: feed.events,
    marker: feed.marker,
    created_at: feed.createdAt.toISOString(),
    updated_at: feed.updatedAt.toISOString(),
    next_poll_at: feed.nextPollAt.toISOString(),
    last_poll: poll && {
      at: poll.at.toISOString(),
      ok: poll.ok,
      error: poll.error,
      occurrences: poll.occurrences,
      scheduled: poll.scheduled,
      moved: poll.moved,
      cancelled: poll.cancelled,
      notes: poll.notes,
    },
  };
}
