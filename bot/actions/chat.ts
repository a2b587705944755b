import { CHAT_COMMAND_MAX_AGE_MS, type ChatSendCommand } from '../../shared/contract/commands.js';
import { CHAT_MESSAGE_MAX_CHARS, type ChatMessageEvent } from '../../shared/contract/events.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { PanelChatMessage, PlatformChat } from '../platforms/driver.js';

export interface MeetingChatDeps {
  chat: PlatformChat;
  /** Where the messages go (the outbox's chat stream). */
  publish: (message: Omit<ChatMessageEvent, 'meetingId' | 'sessionId'>) => Promise<void>;
  /** The name the bot joined with: its own messages are stored under it. */
  botName: () => string;
  /** A wall instant (epoch ms) on the transcript's time line (seconds). */
  transcriptSeconds: (wall: number) => number;
  log: Logger;
  now?: () => number;
}

/** After the panel would not open (no chat for guests, a dialog over it), look again this much later. */
const REOPEN_AFTER_MS = 15_000;

/** How many texts the bot remembers having sent, to know its own authorless messages. */
const SENT_TEXTS_KEPT = 200;

/**
 * The bot's side of the meeting chat: opens the panel once in the call (the pages render messages
 * only while it is open, and its button toggles), sends what `chat.send` commands ask in order, and
 * publishes each message the panel shows once, keyed by the page's own id, so the worker can drop
 * what it gets twice (a relaunched bot reads the same panel again).
 */
export class MeetingChat {
  private readonly seen = new Set<string>();
  private readonly handled = new Set<string>();
  private readonly sentTexts: string[] = [];
  private readonly pending: ChatSendCommand[] = [];
  private opened = false;
  private nextOpenAt = 0;
  private readonly now: () => number;

  constructor(private readonly deps: MeetingChatDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** A `chat.send` command: queued until the bot is in the call; stale or repeated ones are skipped. */
  enqueue(command: ChatSendCommand): void {
    if (this.handled.has(command.id)) return;
    this.handled.add(command.id);
    const age = this.now() - Date.parse(command.issuedAt);
    if (age > CHAT_COMMAND_MAX_AGE_MS) {
      // The command stream is read from its start: an old one was for an earlier bot of the meeting.
      this.deps.log.info({ id: command.id, ageMs: age }, 'skipping an old chat command');
      return;
    }
    this.pending.push(command);
  }

  /** Messages asked for but not sent (the bot left first). */
  unsent(): number {
    return this.pending.length;
  }

  /** One look in the call: open the panel if needed, send what is queued, publish what is new. */
  async tick(): Promise<void> {
    const { chat, log } = this.deps;
    if (!this.opened) {
      // Opening costs seconds when it fails: don't hold up every look at the call with it.
      if (this.now() < this.nextOpenAt) return;
      this.opened = await chat.open();
      if (!this.opened) {
        this.nextOpenAt = this.now() + REOPEN_AFTER_MS;
        log.info('no chat panel to open; trying again later');
        return;
      }
      log.info('chat panel open');
    }
    while (this.pending.length > 0) {
      const command = this.pending[0]!;
      try {
        await chat.send(command.text);
        this.pending.shift();
        this.rememberSent(command.text);
        log.info({ id: command.id, chars: command.text.length }, 'chat message sent');
      } catch (error) {
        // The panel may have been closed (by a person or a re-render): open it on the next look.
        this.opened = false;
        log.warn({ err: error, id: command.id }, 'sending a chat message failed; will retry');
        return;
      }
    }
    await this.publishNew(await chat.read());
  }

  private rememberSent(text: string): void {
    this.sentTexts.push(text.trim());
    if (this.sentTexts.length > SENT_TEXTS_KEPT) this.sentTexts.shift();
  }

  private async publishNew(messages: PanelChatMessage[]): Promise<void> {
    let previousSender: string | null = null;
    for (const message of messages) {
      const own: boolean =
        message.own ||
        (message.sender === null && (this.sentTexts.includes(message.text) || previousSender === null));
      // An authorless message that is not the bot's continues the previous author's group.
      const sender: string | null = message.sender ?? (own ? null : previousSender);
      previousSender = sender ?? previousSender;
      if (this.seen.has(message.key)) continue;
      this.seen.add(message.key);
      const seenAt = this.now();
      const sentAt = message.sentAt !== null && message.sentAt <= seenAt + 60_000 ? message.sentAt : seenAt;
      await this.deps.publish({
        messageKey: message.key,
        sender: own ? this.deps.botName() : (sender ?? ''),
        text: message.text.slice(0, CHAT_MESSAGE_MAX_CHARS),
        fromBot: own,
        sentAt: new Date(sentAt).toISOString(),
        seconds: this.deps.transcriptSeconds(sentAt),
      });
    }
  }
}
