import type { AuthenticatedKey } from '../accounts/keys-store.js';
import { ScheduledBotsFullError } from '../bots/schedule.js';
import { cancelWaitingBot, moveWaitingBot, scheduleBot } from '../bots/scheduled-bots.js';
import type { BotServiceDeps } from '../bots/service.js';
import { AppError, ConflictError } from '../infra/errors.js';
import { findMeetingsByScheduleKeys, listWaitingScheduled } from '../meetings/schedule-store.js';
import type { MeetingRecord } from '../meetings/store.js';
import { type FeedNote, feedKeyPrefix, type PlannedOccurrence } from './plan.js';
import type { CalendarFeedRecord } from './store.js';

/** The history's `source` for changes a calendar feed makes. */
export const CALENDAR_SOURCE = 'calendar';

export interface SyncSettings {
  /** How long before an occurrence's start its bot joins (CALENDAR_FEED_LEAD_SECONDS). */
  leadSeconds: number;
  now: number;
}

export interface SyncReport {
  scheduled: number;
  moved: number;
  cancelled: number;
  notes: FeedNote[];
}

/** A join time within this of the one wanted is left as it is (the database keeps microseconds). */
const SAME_TIME_MS = 1000;

function sameLink(meeting: MeetingRecord, planned: PlannedOccurrence): boolean {
  return (
    meeting.platform === planned.link.platform &&
    meeting.nativeMeetingId === planned.link.nativeMeetingId &&
    meeting.meetingUrl === planned.link.meetingUrl
  );
}

function isWaiting(meeting: MeetingRecord): boolean {
  return meeting.status === 'requested' && meeting.joinAt !== null && meeting.launchSessionId === null;
}

/**
 * Brings the feed's scheduled bots in line with its occurrences, through the scheduled-bots path
 * (scheduleBot with the occurrence's key, so one occurrence never gets two bots, whoever polls):
 * - One bot per meeting link at a time (the service allows one bot in flight per meeting): of a
 *   link's occurrences, the earliest that has not started and has no meeting yet, or already has a
 *   waiting bot, gets the bot; the next one gets its own once that meeting ended (a later poll).
 * - A waiting bot whose occurrence moved is moved (joining `leadSeconds` before the new start);
 *   one whose occurrence was cancelled, removed, or is no longer the link's next is cancelled.
 * - A bot that launched (or ended) is never touched; an occurrence that already started gets no
 *   new bot.
 * - Once the user has MAX_SCHEDULED_BOTS_PER_USER bots waiting, the rest of the poll schedules no new
 *   bot (moves and cancellations still happen) and one note says how many occurrences went without;
 *   they get their bots at a later poll, when there is room.
 */
export async function syncFeedBots(
  deps: BotServiceDeps,
  auth: AuthenticatedKey,
  feed: Pick<CalendarFeedRecord, 'id' | 'botName'>,
  planned: readonly PlannedOccurrence[],
  settings: SyncSettings,
): Promise<SyncReport> {
  const report: SyncReport = { scheduled: 0, moved: 0, cancelled: 0, notes: [] };
  const userId = auth.user.id;
  const existing = await findMeetingsByScheduleKeys(
    deps.db,
    userId,
    planned.map((item) => item.key),
  );
  const waiting = await listWaitingScheduled(deps.db, userId, feedKeyPrefix(feed.id));
  const keep = new Set<number>();
  /** Occurrences left without a bot because the user's scheduled bots are at their limit. */
  let full: { limit: number; left: number } | undefined;
  const note = (detail: string) => ({
    source: CALENDAR_SOURCE,
    detail: `calendar feed ${feed.id}: ${detail}`,
  });
  const cancel = async (meeting: MeetingRecord, why: string) => {
    if (await cancelWaitingBot(deps, meeting.id, note(why))) report.cancelled += 1;
  };

  const byLink = new Map<string, PlannedOccurrence[]>();
  for (const item of [...planned].sort(
    (a, b) => a.occurrence.start.getTime() - b.occurrence.start.getTime(),
  )) {
    const link = `${item.link.platform}/${item.link.nativeMeetingId}`;
    byLink.set(link, [...(byLink.get(link) ?? []), item]);
  }

  for (const occurrences of byLink.values()) {
    const next = occurrences.find((item) => {
      const meeting = existing.get(item.key);
      return meeting ? isWaiting(meeting) : item.occurrence.start.getTime() > settings.now;
    });
    if (!next) continue;
    const wantedJoin = Math.max(next.occurrence.start.getTime() - settings.leadSeconds * 1000, settings.now);
    const meeting = existing.get(next.key);
    try {
      if (meeting && sameLink(meeting, next)) {
        keep.add(meeting.id);
        const current = meeting.joinAt?.getTime() ?? 0;
        const bothDue = current <= settings.now && wantedJoin <= settings.now;
        if (Math.abs(current - wantedJoin) > SAME_TIME_MS && !bothDue) {
          const moved = await moveWaitingBot(deps, meeting.id, new Date(wantedJoin), note('the event moved'));
          if (moved) report.moved += 1;
        }
        continue;
      }
      if (meeting) await cancel(meeting, 'the event’s meeting link changed');
      if (next.occurrence.start.getTime() <= settings.now) continue;
      if (full) {
        full.left += 1;
        continue;
      }
      // The link's waiting bot of a later occurrence gives way to this earlier one.
      for (const other of waiting) {
        if (
          other.platform === next.link.platform &&
          other.nativeMeetingId === next.link.nativeMeetingId &&
          other.scheduleKey !== next.key
        ) {
          await cancel(other, 'an earlier occurrence of the same meeting link comes first');
        }
      }
      const scheduled = await scheduleBot(deps, auth, {
        platform: next.link.platform,
        nativeMeetingId: next.link.nativeMeetingId,
        passcode: next.link.passcode,
        meetingUrl: next.link.meetingUrl,
        botName: feed.botName ?? undefined,
        joinAt: new Date(wantedJoin),
        scheduleKey: next.key,
        scheduledBy: note(`event ${next.occurrence.uid}`),
      });
      keep.add(scheduled.meeting.id);
      if (scheduled.created) report.scheduled += 1;
    } catch (error) {
      if (error instanceof ScheduledBotsFullError) {
        full = { limit: error.limit, left: 1 };
        continue;
      }
      // A bot of the user's already in that meeting (sent by hand, or the previous occurrence's
      // still there): this occurrence gets its bot at a later poll, once that one ended.
      if (error instanceof ConflictError) continue;
      if (!(error instanceof AppError)) throw error;
      report.notes.push({ uid: next.occurrence.uid, reason: error.message });
    }
  }

  for (const meeting of waiting) {
    if (keep.has(meeting.id)) continue;
    await cancel(meeting, 'the event was cancelled or removed');
  }
  if (full) {
    report.notes.push({
      uid: '',
      reason: `${full.left} event(s) got no bot: you have the most scheduled bots allowed waiting at once (${full.limit}, MAX_SCHEDULED_BOTS_PER_USER); they get theirs at a later poll once some have launched or been cancelled`,
    });
  }
  return report;
}
