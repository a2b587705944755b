import { chatMessageJson } from '../../shared/chat/serialize.js';
import type { ChatMessageRecord } from '../../shared/chat/store.js';
import type { MeetingStatus } from '../../shared/contract/meeting-status.js';
import type { Platform } from '../../shared/contract/platforms.js';
import { statusEventJson } from '../../shared/meetings/serialize.js';
import type { TransitionRecord } from '../../shared/meetings/transitions-store.js';
import { participantEventJson } from '../../shared/participants/serialize.js';
import type { ParticipantEventRecord } from '../../shared/participants/store.js';
import { liveSegmentJson } from '../../shared/transcripts/serialize.js';
import type { SegmentRecord } from '../../shared/transcripts/store.js';
import { formatCursor, type LiveCursor } from '../live/cursor.js';
import type { LiveItem } from '../live/feed.js';
import type { ErrorCode } from './protocol.js';

/** What the server sends on `/ws`: JSON text frames with a `type` (docs/api.md). */

/** A subscribed meeting as frames name it: our id and Vexa's pair. */
export interface MeetingRef {
  id: number;
  platform: Platform;
  native_id: string;
}

/** A meeting in `subscribed` and `unsubscribed`: both names, as the client may use either. */
function listed(meeting: MeetingRef) {
  return { meeting_id: meeting.id, platform: meeting.platform, native_id: meeting.native_id };
}

export function subscribedFrame(meetings: ReadonlyArray<{ meeting: MeetingRef; status: MeetingStatus }>) {
  return {
    type: 'subscribed',
    meetings: meetings.map(({ meeting, status }) => ({ ...listed(meeting), status })),
  };
}

/**
 * `reason`: absent when the client asked; `meeting_ended` when its meeting ended and went quiet
 * (nothing more will come), `meeting_deleted` when it was deleted.
 */
export function unsubscribedFrame(
  meetings: readonly MeetingRef[],
  reason?: { reason: 'meeting_ended'; status: MeetingStatus } | { reason: 'meeting_deleted' },
) {
  return { type: 'unsubscribed', meetings: meetings.map(listed), ...reason };
}

export function errorFrame(
  error: ErrorCode,
  details: string,
  extra: { meetings?: unknown[]; retry_after?: number } = {},
) {
  return { type: 'error', error, details, ...extra };
}

/** A data frame: what changed in one meeting, with the cursor to resume after it. */
function dataFrame(type: string, meeting: MeetingRef, cursor: LiveCursor, body: Record<string, unknown>) {
  return { type, meeting, ...body, cursor: formatCursor(cursor), ts: new Date().toISOString() };
}

/**
 * New or changed segments, all as Vexa's `transcript.mutable` (Vexa no longer sends
 * `transcript.finalized`): a segment with a `segment_id` seen before replaces it, and `completed`
 * (Vexa's name for our `final`) says no further copy will come.
 */
export function segmentsFrame(meeting: MeetingRef, segments: readonly SegmentRecord[], cursor: LiveCursor) {
  return dataFrame('transcript.mutable', meeting, cursor, {
    payload: {
      segments: segments.map((segment) => ({
        ...liveSegmentJson(segment),
        completed: segment.final,
        updated_at: segment.updatedAt.toISOString(),
      })),
    },
  });
}

/** A status change: Vexa's `meeting.status` with `payload.status`, and what the SSE stream's `status` event says. */
export function statusFrame(meeting: MeetingRef, transition: TransitionRecord, cursor: LiveCursor) {
  return dataFrame('meeting.status', meeting, cursor, { payload: statusEventJson(transition) });
}

/** A participant joined, left, started or stopped speaking: `participant.<type>` as the webhook, the event as GET …/events lists it in `payload`. */
export function participantFrame(meeting: MeetingRef, event: ParticipantEventRecord, cursor: LiveCursor) {
  return dataFrame(event.type, meeting, cursor, { name: event.name, payload: participantEventJson(event) });
}

/** A chat message the bot read: Vexa's `chat_message` (`sender`, `text` on top), the message as GET …/chat lists it in `payload`. */
export function chatFrame(meeting: MeetingRef, message: ChatMessageRecord, cursor: LiveCursor) {
  return dataFrame('chat_message', meeting, cursor, {
    sender: message.sender,
    text: message.text,
    payload: chatMessageJson(message),
  });
}

/**
 * One read's changes of a meeting as frames, in order: segments in frames of up to
 * `segmentsPerFrame` (a long meeting's history goes out in several), the rest one frame each.
 */
export function* liveItemFrames(meeting: MeetingRef, items: readonly LiveItem[], segmentsPerFrame: number) {
  let segments: SegmentRecord[] = [];
  let segmentsCursor: LiveCursor | undefined;
  function* flush() {
    if (segments.length > 0 && segmentsCursor) yield segmentsFrame(meeting, segments, segmentsCursor);
    segments = [];
  }
  for (const item of items) {
    if (item.kind === 'segment') {
      segments.push(item.segment);
      segmentsCursor = item.cursor;
      if (segments.length >= segmentsPerFrame) yield* flush();
      continue;
    }
    yield* flush();
    yield item.kind === 'status'
      ? statusFrame(meeting, item.transition, item.cursor)
      : item.kind === 'chat'
        ? chatFrame(meeting, item.message, item.cursor)
        : participantFrame(meeting, item.event, item.cursor);
  }
  yield* flush();
}
