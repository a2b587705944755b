import type { Db } from '../infra/knex.js';

export interface ChatMessageRecord {
  id: number;
  meetingId: number;
  /** The page's own id of the message within the meeting (one row per key). */
  messageKey: string;
  sender: string;
  text: string;
  fromBot: boolean;
  sentAt: Date;
  /** `sentAt` on the transcript's time line (seconds). */
  start: number;
  createdAt: Date;
}

export type ChatMessageInsert = Omit<ChatMessageRecord, 'id' | 'createdAt'>;

interface ChatMessageRow {
  id: number;
  meeting_id: number;
  message_key: string;
  sender: string;
  text: string;
  from_bot: boolean;
  sent_at: Date;
  start_seconds: number;
  created_at: Date;
}

function toRecord(row: ChatMessageRow): ChatMessageRecord {
  return {
    id: row.id,
    meetingId: row.meeting_id,
    messageKey: row.message_key,
    sender: row.sender,
    text: row.text,
    fromBot: row.from_bot,
    sentAt: row.sent_at,
    start: row.start_seconds,
    createdAt: row.created_at,
  };
}

/**
 * Stores the messages not stored yet (by meeting and key) and returns those, in the order given: a
 * message seen twice is written, and so reported, once.
 */
export async function insertChatMessages(
  db: Db,
  messages: readonly ChatMessageInsert[],
): Promise<ChatMessageRecord[]> {
  if (messages.length === 0) return [];
  const rows: ChatMessageRow[] = await db<ChatMessageRow>('chat_messages')
    .insert(
      messages.map((m) => ({
        meeting_id: m.meetingId,
        message_key: m.messageKey,
        sender: m.sender,
        text: m.text,
        from_bot: m.fromBot,
        sent_at: m.sentAt,
        start_seconds: m.start,
      })),
    )
    .onConflict(['meeting_id', 'message_key'])
    .ignore()
    .returning('*');
  return rows.map(toRecord).sort((a, b) => a.id - b.id);
}

/** A meeting's messages in chat order (transcript time, then arrival), one page of them. */
export async function listChatMessages(
  db: Db,
  meetingId: number,
  page: { limit: number; offset: number },
): Promise<ChatMessageRecord[]> {
  const rows = await db<ChatMessageRow>('chat_messages')
    .where({ meeting_id: meetingId })
    .orderBy([{ column: 'start_seconds' }, { column: 'id' }])
    .limit(page.limit)
    .offset(page.offset);
  return rows.map(toRecord);
}

/** For each meeting, its messages stored after the one with id `after`, in the order they were stored, meeting by meeting. */
export async function listChatMessagesSince(
  db: Db,
  positions: ReadonlyArray<{ meetingId: number; after: number }>,
): Promise<ChatMessageRecord[]> {
  if (positions.length === 0) return [];
  const rows: ChatMessageRow[] = await db('chat_messages as m')
    .join(
      db.raw('unnest(?::integer[], ?::bigint[]) AS p(meeting_id, after_id)', [
        positions.map((position) => position.meetingId),
        positions.map((position) => position.after),
      ]),
      (join) => join.on('m.meeting_id', 'p.meeting_id').andOn('m.id', '>', 'p.after_id'),
    )
    .select('m.*')
    .orderBy([{ column: 'm.meeting_id' }, { column: 'm.id' }]);
  return rows.map(toRecord);
}
