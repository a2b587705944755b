import type { PageChatMessage } from './page-protocol.js';
import { type PageSession, sendTo } from './page-session.js';
import type { ChatMessageSnapshot } from './snapshot.js';

/** A message in the meeting's chat: a scripted participant's, or one a page sent. */
export interface ChatEntry {
  id: string;
  sender: string;
  text: string;
  at: Date;
  participantId: string | null;
  /** The session that sent it (a page), or null for a scripted participant. */
  sessionId: string | null;
}

/** The meeting's chat: its messages in the order they were written, handed to every page. */
export class MeetingChat {
  private readonly log: ChatEntry[] = [];
  private sentCount = 0;

  constructor(private readonly sessions: () => Iterable<PageSession>) {}

  /** The id of the next message a page sends: s1, s2, … */
  nextPageMessageId(): string {
    this.sentCount += 1;
    return `s${this.sentCount}`;
  }

  /** Everyone's page gets the message; each page sees its own messages as its own. */
  post(entry: ChatEntry): void {
    this.log.push(entry);
    for (const session of this.sessions()) {
      sendTo(session, { event: 'chat', data: chatViewFor(entry, session.id) });
    }
  }

  /** The whole chat as one session's page sees it. */
  viewFor(sessionId: string): PageChatMessage[] {
    return this.log.map((entry) => chatViewFor(entry, sessionId));
  }

  snapshot(botSessionId: string | null): ChatMessageSnapshot[] {
    return this.log.map((entry): ChatMessageSnapshot => {
      const fromBot = entry.sessionId !== null && entry.sessionId === botSessionId;
      return {
        id: entry.id,
        sender: entry.sender,
        text: entry.text,
        at: entry.at.toISOString(),
        from: fromBot ? 'bot' : entry.sessionId === null ? 'participant' : 'page',
        participantId: entry.participantId,
      };
    });
  }
}

function chatViewFor(entry: ChatEntry, sessionId: string): PageChatMessage {
  return {
    id: entry.id,
    sender: entry.sender,
    text: entry.text,
    at: entry.at.toISOString(),
    mine: entry.sessionId === sessionId,
  };
}
