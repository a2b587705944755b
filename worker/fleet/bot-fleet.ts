import { EventEmitter } from 'node:events';

export interface TrackedBot {
  containerId: string;
  meetingId: number;
  sessionId: string;
}

/**
 * The bots this worker runs, which decide its free slots. Emits `freed` when a slot opens (or
 * launches may go on again) and `changed` whenever the number of slots in use, of lagging bots or of
 * settling bots does. Reservations cover the gap between taking a launch and its container running.
 *
 * With `settleLimitMs` over 0 (BOT_SETTLE_LIMIT_SECONDS), bots settle in one at a time: a bot is
 * settling from its container's start until it says it has settled (bot/session.ts lagState: in the
 * call with its video measures done, or a while in the lobby), and again from its admission until
 * then, for at most `settleLimitMs` each time; meanwhile the worker starts no other bot. Those are a
 * bot's busiest seconds (its browser starting, the page loading, every camera arriving until the
 * meeting's setting stops them), and several at once on one machine hold up the bots already
 * transcribing there; the price is that later bots join later. 0 (the default): no waiting.
 */
export class BotFleet extends EventEmitter {
  private readonly bots = new Map<string, TrackedBot>();
  private reserved = 0;
  /** Containers whose bots report their transcription falling behind. */
  private readonly lagging = new Set<string>();
  /** Containers whose bots are settling in, with when that began (ms). */
  private readonly settling = new Map<string, number>();
  /** Bots whose settling ran over the limit: not held against the worker again until they settle. */
  private readonly overran = new Set<string>();

  constructor(
    readonly slots: number,
    private readonly settleLimitMs = 0,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  get used(): number {
    return this.bots.size + this.reserved;
  }

  /**
   * Whether this worker takes new launches: it has a free slot, none of its bots lags (one more
   * bot would only take CPU from those already behind) and none is settling in.
   */
  get accepting(): boolean {
    return this.used < this.slots && this.lagging.size === 0 && this.settlingBots === 0;
  }

  get laggingBots(): number {
    return this.lagging.size;
  }

  /** Bots settling in now, within the limit. */
  get settlingBots(): number {
    const now = this.now();
    let count = 0;
    for (const since of this.settling.values()) if (now - since < this.settleLimitMs) count += 1;
    return count;
  }

  /**
   * What a bot says of settling in (undefined: an older bot that says nothing, which counts as
   * settled). Returns whether that changed.
   */
  setSettling(containerId: string, settling: boolean | undefined): boolean {
    if (settling && this.settleLimitMs > 0 && this.bots.has(containerId)) {
      if (this.settling.has(containerId) || this.overran.has(containerId)) return false;
      this.settling.set(containerId, this.now());
      this.emit('changed');
      return true;
    }
    if (!settling) this.overran.delete(containerId);
    if (!this.settling.delete(containerId)) return false;
    this.afterSettled();
    return true;
  }

  /** Forgets bots settling for longer than the limit; launches go on when none is left. */
  expireSettling(): void {
    const now = this.now();
    let expired = false;
    for (const [containerId, since] of this.settling) {
      if (now - since < this.settleLimitMs) continue;
      this.settling.delete(containerId);
      this.overran.add(containerId);
      expired = true;
    }
    if (expired) this.afterSettled();
  }

  private afterSettled(): void {
    if (this.settlingBots === 0) this.emit('freed');
    this.emit('changed');
  }

  /** A bot is lagging or not; launches resume once none lags. Returns whether that changed. */
  setLagging(containerId: string, lagging: boolean): boolean {
    if (lagging && this.bots.has(containerId)) {
      if (this.lagging.has(containerId)) return false;
      this.lagging.add(containerId);
      this.emit('changed');
      return true;
    }
    if (!this.lagging.delete(containerId)) return false;
    if (this.lagging.size === 0) this.emit('freed');
    this.emit('changed');
    return true;
  }

  /** Takes a slot for a launch about to start; false when none is free, or a bot lags or settles in. */
  reserve(): boolean {
    if (!this.accepting) return false;
    this.reserved += 1;
    this.emit('changed');
    return true;
  }

  /** The reserved slot becomes the running bot's (or is given back when the launch didn't start one). */
  settle(bot: TrackedBot | undefined): void {
    this.reserved = Math.max(0, this.reserved - 1);
    if (bot) {
      this.bots.set(bot.containerId, bot);
      if (this.settleLimitMs > 0) this.settling.set(bot.containerId, this.now());
    } else this.emit('freed');
    this.emit('changed');
  }

  /** A running bot found at start-up (re-adoption) or after a restart of the worker. */
  adopt(bot: TrackedBot): void {
    this.bots.set(bot.containerId, bot);
    this.emit('changed');
  }

  has(containerId: string): boolean {
    return this.bots.has(containerId);
  }

  get(containerId: string): TrackedBot | undefined {
    return this.bots.get(containerId);
  }

  release(containerId: string): void {
    if (!this.bots.delete(containerId)) return;
    this.lagging.delete(containerId);
    this.settling.delete(containerId);
    this.overran.delete(containerId);
    this.emit('freed');
    this.emit('changed');
  }

  list(): TrackedBot[] {
    return [...this.bots.values()];
  }
}
