import { createHash } from 'node:crypto';
import type { MeetingLink } from '../contract/platforms.js';
import type { Expansion, FeedOccurrence } from './ics.js';
import { findMeetingLink, hasMarker, NO_MEETING_LINK } from './links.js';
import type { CalendarFeedRecord } from './store.js';

/** An occurrence that should have a bot: its key, when it starts and where it meets. */
export interface PlannedOccurrence {
  /** `feed:<feedId>:<UID>[:<recurrence-id>]`, the meeting's schedule key (unique per user). */
  key: string;
  occurrence: FeedOccurrence;
  link: MeetingLink;
}

/** An event the feed's owner may wonder about: why it has no bot. */
export interface FeedNote {
  uid: string;
  reason: string;
}

export interface FeedPlan {
  planned: PlannedOccurrence[];
  notes: FeedNote[];
}

/** Keys stay short enough for a btree index whatever a feed's UIDs look like. */
const MAX_UID_IN_KEY = 200;

/** The prefix of every schedule key of this feed's occurrences. */
export function feedKeyPrefix(feedId: number): string {
  return `feed:${feedId}:`;
}

/** The schedule key of one occurrence: the feed, the event's UID, and for a recurring one its RECURRENCE-ID. */
export function occurrenceKey(
  feedId: number,
  occurrence: Pick<FeedOccurrence, 'uid' | 'recurrenceId'>,
): string {
  const uid =
    occurrence.uid.length <= MAX_UID_IN_KEY
      ? occurrence.uid
      : `sha256-${createHash('sha256').update(occurrence.uid).digest('hex')}`;
  return `${feedKeyPrefix(feedId)}${uid}${occurrence.recurrenceId ? `:${occurrence.recurrenceId}` : ''}`;
}

/**
 * Which occurrences should have a bot: those the feed's choice takes (`all`, or `marked` with its
 * marker word) that have a Meet or Teams link. Events without a link are left out silently (a lunch
 * needs no bot); a link the service can't follow, and events the expansion left out, become notes.
 * Pure.
 */
export function planFeed(
  feed: Pick<CalendarFeedRecord, 'id' | 'events' | 'marker'>,
  expansion: Expansion,
  extraOrigins: readonly string[],
): FeedPlan {
  const notes: FeedNote[] = expansion.skipped.map((skipped) => ({ ...skipped }));
  if (expansion.truncated) {
    notes.push({
      uid: '',
      reason: 'more occurrences than CALENDAR_FEED_MAX_OCCURRENCES: the latest were left out',
    });
  }
  const planned: PlannedOccurrence[] = [];
  const noted = new Set<string>();
  for (const occurrence of expansion.occurrences) {
    if (feed.events === 'marked' && !hasMarker(occurrence, feed.marker)) continue;
    const found = findMeetingLink(occurrence, extraOrigins);
    if (!found.ok) {
      if (found.reason !== NO_MEETING_LINK && !noted.has(occurrence.uid)) {
        noted.add(occurrence.uid);
        notes.push({ uid: occurrence.uid, reason: found.reason });
      }
      continue;
    }
    planned.push({ key: occurrenceKey(feed.id, occurrence), occurrence, link: found.link });
  }
  return { planned, notes };
}
