/** Ends one open live connection on shutdown (an SSE stream, a WebSocket); resolves once it has. */
export type CloseFeed = () => Promise<void> | void;

/**
 * The live connections this API process has open, so that its shutdown ends them instead of waiting
 * for clients that stay for hours: SSE streams end (their clients reconnect with Last-Event-ID to
 * another replica), WebSockets close with 1001. Once closing, no new one is opened.
 */
export class OpenFeeds {
  private readonly open = new Set<CloseFeed>();
  private closingAll = false;

  get closing(): boolean {
    return this.closingAll;
  }

  get size(): number {
    return this.open.size;
  }

  /** Keeps `close` until the returned function is called (when the connection ends on its own). */
  register(close: CloseFeed): () => void {
    this.open.add(close);
    return () => {
      this.open.delete(close);
    };
  }

  /** Ends every open connection and refuses new ones; resolves once all have ended. */
  async closeAll(): Promise<void> {
    this.closingAll = true;
    const closing = [...this.open];
    this.open.clear();
    await Promise.allSettled(closing.map(async (close) => close()));
  }
}
