import { EventEmitter } from 'node:events';

export interface TrackedBot {
  containerId: string;
  meetingId: number;
  sessionId: string;
}

/**
 * The bots this worker runs, which decide its free slots. Emits `freed` when a slot opens and
 * `changed` whenever the number of slots in use does. Reservations cover the gap between taking a
 * launch and its container running.
 */
export class BotFleet extends EventEmitter {
  private readonly bots = new Map<string, TrackedBot>();
  private reserved = 0;
  /** Containers whose bots report their transcription falling behind. */
  private readonly lagging = new Set<string>();

  constructor(readonly slots: number) {
    super();
  }

  get used(): number {
    return this.bots.size + this.reserved;
  }

  /**
   * Whether this worker takes new launches: it has a free slot and none of its bots lags (one more
   * bot would only take CPU from those already behind).
   */
  get accepting(): boolean {
    return this.used < this.slots && this.lagging.size === 0;
  }

  get laggingBots(): number {
    return this.lagging.size;
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

  /** Takes a slot for a launch about to start; false when none is free or a bot lags. */
  reserve(): boolean {
    if (!this.accepting) return false;
    this.reserved += 1;
    this.emit('changed');
    return true;
  }

  /** The reserved slot becomes the running bot's (or is given back when the launch didn't start one). */
  settle(bot: TrackedBot | undefined): void {
    this.reserved = Math.max(0, this.reserved - 1);
    if (bot) this.bots.set(bot.containerId, bot);
    else this.emit('freed');
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
    this.emit('freed');
    this.emit('changed');
  }

  list(): TrackedBot[] {
    return [...this.bots.values()];
  }
}
