import type { AuthenticatedKey } from '../../shared/accounts/keys-store.js';
import type { MeetingStatus } from '../../shared/contract/meeting-status.js';
import { NotFoundError } from '../../shared/infra/errors.js';
import type { Knex } from '../../shared/infra/knex.js';
import { getMeeting, latestMeeting } from '../../shared/meetings/service.js';
import { HISTORY_START, type LiveCursor, parseCursor } from '../live/cursor.js';
import type { MeetingRef } from './frames.js';
import type { MeetingSelector } from './protocol.js';

// Which meetings a `subscribe` or `unsubscribe` message names (protocol.ts), for the live socket
// session (session.ts).

/** A selector as an error frame repeats it (without the cursor). */
export function named(selector: MeetingSelector) {
  return selector.meeting_id !== undefined
    ? { meeting_id: selector.meeting_id }
    : { platform: selector.platform, native_id: selector.native_id };
}

export type NamedSelector = ReturnType<typeof named>;

function selects(selector: MeetingSelector, meeting: MeetingRef): boolean {
  return selector.meeting_id !== undefined
    ? selector.meeting_id === meeting.id
    : selector.platform === meeting.platform && selector.native_id === meeting.native_id;
}

export interface SelectedMeeting {
  meeting: MeetingRef;
  status: MeetingStatus;
  cursor: LiveCursor;
}

/**
 * The key's user's meetings the selectors of a `subscribe` name, once each, with the cursor to
 * follow each from (the selector's, else the start of its history); the selectors of meetings not
 * found (another user's meeting is not found, exactly as over REST).
 */
export async function findSelectedMeetings(
  db: Knex,
  auth: AuthenticatedKey,
  selectors: readonly MeetingSelector[],
): Promise<{ found: Map<number, SelectedMeeting>; notFound: NamedSelector[] }> {
  const found = new Map<number, SelectedMeeting>();
  const notFound: NamedSelector[] = [];
  for (const selector of selectors) {
    try {
      const record =
        selector.meeting_id !== undefined
          ? await getMeeting(db, auth, selector.meeting_id)
          : await latestMeeting(db, auth, selector.platform!, selector.native_id!);
      if (found.has(record.id)) continue;
      found.set(record.id, {
        meeting: { id: record.id, platform: record.platform, native_id: record.nativeMeetingId },
        status: record.status,
        cursor: (selector.cursor && parseCursor(selector.cursor)) || { ...HISTORY_START },
      });
    } catch (error) {
      // Another user's meeting is not found, exactly as over REST.
      if (!(error instanceof NotFoundError)) throw error;
      notFound.push(named(selector));
    }
  }
  return { found, notFound };
}

/**
 * Takes the meetings an `unsubscribe`'s selectors name out of `subscriptions`: those removed, and the
 * selectors that named no subscribed meeting.
 */
export function removeSelected(
  subscriptions: Map<number, MeetingRef>,
  selectors: readonly MeetingSelector[],
): { removed: Map<number, MeetingRef>; notSubscribed: NamedSelector[] } {
  const removed = new Map<number, MeetingRef>();
  const notSubscribed: NamedSelector[] = [];
  for (const selector of selectors) {
    const matching = [...subscriptions.values()].filter((meeting) => selects(selector, meeting));
    if (matching.length === 0 && ![...removed.values()].some((meeting) => selects(selector, meeting))) {
      notSubscribed.push(named(selector));
    }
    for (const meeting of matching) {
      subscriptions.delete(meeting.id);
      removed.set(meeting.id, meeting);
    }
  }
  return { removed, notSubscribed };
}
