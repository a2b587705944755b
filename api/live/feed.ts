import type { ChatMessageRecord } from '../../shared/chat/store.js';
import { isTerminal, type MeetingStatus } from '../../shared/contract/meeting-status.js';
import type { Knex } from '../../shared/infra/knex.js';
import type { MeetingChangeListener } from '../../shared/meetings/changes.js';
import type { ParticipantEventRecord } from '../../shared/participants/store.js';
import type { TransitionRecord } from '../../shared/meetings/transitions-store.js';
import type { SegmentRecord } from '../../shared/transcripts/store.js';
import { type MeetingChanges, readLiveChanges } from './changes.js';
import type { LiveCursor } from './cursor.js';

export interface LiveFeedOptions {
  /** Re-read Postgres this often even without an announcement (a lost one only delays an update). */
  pollMs: number;
  /** After a meeting ended, stop following it once nothing changed for this long (late segments still arrive). */
  endQuietMs: number;
}

/** One committed change, with the position a reader stands at once it has it. */
export type LiveItem =
  | { kind: 'segment'; segment: SegmentRecord; cursor: LiveCursor }
  | { kind: 'status'; transition: TransitionRecord; cursor: LiveCursor }
  | { kind: 'chat'; message: ChatMessageRecord; cursor: LiveCursor }
  | { kind: 'participant'; event: ParticipantEventRecord; cursor: LiveCursor };

/** Where a feed delivers (an SSE stream, a WebSocket). */
export interface LiveFeedSink {
  /** What changed in one meeting since the last delivery, in the order to send it. */
  changes(meetingId: number, items: readonly LiveItem[]): void;
  /**
   * The meeting ended and nothing changed for endQuietMs (its final status), or it was deleted
   * (undefined): the feed no longer follows it.
   */
  ended(meetingId: number, status: MeetingStatus | undefined): void;
  /** Resolves once the client can take more: a slow one holds the reads back, and what it has not got yet waits in Postgres. */
  ready?(): Promise<void>;
}

export interface LiveFeedDeps {
  db: Knex;
  changes: MeetingChangeListener;
  options: LiveFeedOptions;
  sink: LiveFeedSink;
}

interface Followed {
  cursor: LiveCursor;
  stopListening: () => void;
  /** When the last change was delivered (0: none yet). */
  lastChangeAt: number;
  /** When to read again without an announcement. */
  nextReadAt: number;
}

/** The items of one read in the order they are sent (segments, status changes, chat, participant events), advancing `cursor`. */
function itemsOf(changes: MeetingChanges, cursor: LiveCursor): LiveItem[] {
  const items: LiveItem[] = [];
  for (const segment of changes.segments) {
    cursor.segment = segment.changeSeq;
    items.push({ kind: 'segment', segment, cursor: { ...cursor } });
  }
  for (const transition of changes.transitions) {
    cursor.transition = transition.id;
    items.push({ kind: 'status', transition, cursor: { ...cursor } });
  }
  for (const message of changes.chat) {
    cursor.chat = message.id;
    items.push({ kind: 'chat', message, cursor: { ...cursor } });
  }
  for (const event of changes.participants) {
    cursor.participant = event.id;
    items.push({ kind: 'participant', event, cursor: { ...cursor } });
  }
  return items;
}

/**
 * Follows meetings as their changes are committed to Postgres, for one client: the SSE stream of one
 * meeting or a WebSocket subscribed to many. A meeting is read when its change is announced (Redis
 * pub/sub, from any process) and every pollMs anyway; all meetings due are read at once (four
 * queries). Every delivered item carries its cursor, so a client that reconnects from the last one
 * it got misses nothing and gets nothing twice. `done` settles when the feed is closed, or rejects
 * when a read fails (the client reconnects from its cursor).
 */
export class LiveFeed {
  private readonly followed = new Map<number, Followed>();
  private readonly due = new Set<number>();
  private wake: (() => void) | undefined;
  private closed = false;
  private readonly closedSignal: Promise<void>;
  private signalClosed!: () => void;
  readonly done: Promise<void>;

  constructor(private readonly deps: LiveFeedDeps) {
    this.closedSignal = new Promise((resolve) => {
      this.signalClosed = resolve;
    });
    this.done = this.run();
    // The owner decides what a failed read means; an unobserved one must not crash the process.
    this.done.catch(() => undefined);
  }

  /** Starts following a meeting from `cursor` (false when it is followed already: it keeps its place). */
  follow(meetingId: number, cursor: LiveCursor): boolean {
    if (this.closed || this.followed.has(meetingId)) return false;
    const stopListening = this.deps.changes.listen(meetingId, () => this.markDue(meetingId));
    this.followed.set(meetingId, { cursor: { ...cursor }, stopListening, lastChangeAt: 0, nextReadAt: 0 });
    this.markDue(meetingId);
    return true;
  }

  unfollow(meetingId: number): boolean {
    const followed = this.followed.get(meetingId);
    if (!followed) return false;
    followed.stopListening();
    this.followed.delete(meetingId);
    this.due.delete(meetingId);
    return true;
  }

  isFollowing(meetingId: number): boolean {
    return this.followed.has(meetingId);
  }

  get size(): number {
    return this.followed.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const meetingId of [...this.followed.keys()]) this.unfollow(meetingId);
    this.signalClosed();
    this.wake?.();
  }

  private markDue(meetingId: number): void {
    this.due.add(meetingId);
    this.wake?.();
  }

  private async run(): Promise<void> {
    const { options, sink } = this.deps;
    while (!this.closed) {
      const now = Date.now();
      for (const [meetingId, followed] of this.followed)
        if (followed.nextReadAt <= now) this.due.add(meetingId);
      if (this.due.size === 0) {
        await this.sleep();
        continue;
      }
      if (sink.ready) await Promise.race([sink.ready(), this.closedSignal]);
      if (this.closed) break;
      const reading = [...this.due].flatMap((meetingId) => {
        const followed = this.followed.get(meetingId);
        return followed ? [[meetingId, followed] as const] : [];
      });
      this.due.clear();
      const changes = await readLiveChanges(
        this.deps.db,
        new Map(reading.map(([meetingId, followed]) => [meetingId, followed.cursor])),
      );
      const readAt = Date.now();
      for (const [meetingId, followed] of reading) {
        // Unfollowed while reading (perhaps followed again from another cursor): this read is stale.
        if (this.closed || this.followed.get(meetingId) !== followed) continue;
        const meetingChanges = changes.get(meetingId);
        if (!meetingChanges) continue;
        const items = itemsOf(meetingChanges, followed.cursor);
        if (items.length > 0) {
          followed.lastChangeAt = readAt;
          sink.changes(meetingId, items);
        }
        const progress = meetingChanges.meeting;
        if (!progress) {
          this.unfollow(meetingId);
          sink.ended(meetingId, undefined);
          continue;
        }
        if (!isTerminal(progress.status)) {
          followed.nextReadAt = readAt + options.pollMs;
          continue;
        }
        const quietSince = Math.max(followed.lastChangeAt, progress.endTime?.getTime() ?? 0);
        if (readAt - quietSince >= options.endQuietMs) {
          this.unfollow(meetingId);
          sink.ended(meetingId, progress.status);
          continue;
        }
        // Look again soon enough to let it go on time.
        followed.nextReadAt = readAt + Math.min(options.pollMs, options.endQuietMs);
      }
    }
  }

  /** Until a followed meeting is announced, one is due for its next read, or the feed closes. */
  private sleep(): Promise<void> {
    let next = Number.POSITIVE_INFINITY;
    for (const followed of this.followed.values()) next = Math.min(next, followed.nextReadAt);
    return new Promise<void>((resolve) => {
      const timer = Number.isFinite(next)
        ? setTimeout(() => done(), Math.max(0, next - Date.now()))
        : undefined;
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
    });
  }
}
