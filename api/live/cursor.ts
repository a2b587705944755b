/**
 * A position in a meeting's live history: the last status change, segment change and chat message
 * a client has seen, each an increasing number Postgres gave it. The SSE stream sends it as every
 * event's id (`Last-Event-ID` resumes), the WebSocket feed as every data frame's `cursor` (a
 * subscription resumes from it); the two forms are the same text, `<status>-<segment>-<chat>`.
 */
export interface LiveCursor {
  transition: number;
  segment: number;
  chat: number;
}

/** Nothing seen yet: a reader starting here gets the meeting's whole history. */
export const HISTORY_START: Readonly<LiveCursor> = { transition: 0, segment: 0, chat: 0 };

const CURSOR = /^(\d{1,18})-(\d{1,18})(?:-(\d{1,18}))?$/;

/** `T-S-C`, or the older `T-S` (no chat message seen); undefined for anything else. */
export function parseCursor(text: string): LiveCursor | undefined {
  const match = CURSOR.exec(text.trim());
  return match
    ? { transition: Number(match[1]), segment: Number(match[2]), chat: Number(match[3] ?? 0) }
    : undefined;
}

export function formatCursor(cursor: LiveCursor): string {
  return `${cursor.transition}-${cursor.segment}-${cursor.chat}`;
}
