import type { BotContainerInfo } from '../bot-runtime.js';

/** How long a deleted pod's last state is kept for its exit's handling. */
const KEEP_MS = 10 * 60_000;

/**
 * The last state of bot pods that ended, as the watch saw them end or go (an eviction, a lost node
 * deletes the pod): the exit handler reads a bot's end after its pod may be gone, where on Docker the
 * container stays until the worker removes it.
 */
export class PodTombstones {
  private readonly byName = new Map<string, { info: BotContainerInfo; at: number }>();

  remember(info: BotContainerInfo): void {
    this.prune();
    this.byName.set(info.id, { info, at: Date.now() });
  }

  find(name: string): BotContainerInfo | undefined {
    return this.byName.get(name)?.info;
  }

  forget(name: string): void {
    this.byName.delete(name);
  }

  private prune(): void {
    const oldest = Date.now() - KEEP_MS;
    for (const [name, entry] of this.byName) if (entry.at < oldest) this.byName.delete(name);
  }
}
