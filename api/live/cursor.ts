/**
 * A position in a meeting's live history: the last status change, segment change, chat message and
 * participant event a client has seen, each an increasing number Postgres gave it. The SSE stream
 * sends it as every event's id (`Last-Event-ID` resumes), the WebSocket feed as every data frame's
 * `cursor` (a subscription resumes from it); the two forms are the same text,
 * `<status>-<segment>-<chat>-<participant>`.
 */
export interface LiveCursor {
  transition: number;
  segment: number;
  chat: number;
  participant: number;
}

/** Nothing seen yet: a reader starting here gets the meeting's whole history. */
export const HISTORY_START: Readonly<LiveCursor> = { transition: 0, segment: 0, chat: 0, participant: 0 };

const CURSOR = /^(\d{1,18})-(\d{1,18})(?:-(\d{1,18}))?(?:-(\d{1,18}))?$/;

/**
 * `T-S-C-P`, or an older `T-S-C` (no participant event seen) or `T-S` (no chat message either);
 * undefined for anything else.
 */
export function parseCursor(text: string): LiveCursor | undefined {
  const match = CURSOR.exec(text.trim());
  if (!match || (match[4] !== undefined && match[3] === undefined)) return undefined;
  return {
    transition: Number(match[1]),
    segment: Number(match[2]),
    chat: Number(match[3] ?? 0),
    participant: Number(match[4] ?? 0),
  };
}

export function formatCursor(cursor: LiveCursor): string {
  return `${cursor.transition}-${cursor.segment}-${cursor.chat}-${cursor.participant}`;
}
