/**
 * Serialized answers kept in memory as the bytes sent, keyed by the version of the data they were
 * built from: a key names exactly one answer, so an entry is never stale, only unused. Least
 * recently used entries go first once the total passes `maxBytes` (RESPONSE_CACHE_MB); 0 keeps
 * nothing.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Buffer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Buffer | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    // Most recently used last.
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: string, value: Buffer): void {
    if (value.length > this.maxBytes) return;
    const previous = this.entries.get(key);
    if (previous !== undefined) {
      this.entries.delete(key);
      this.bytes -= previous.length;
    }
    this.entries.set(key, value);
    this.bytes += value.length;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= old.length;
    }
  }

  /** The answer (JSON or another text) for `key` as UTF-8 bytes, built (and kept) when there is none yet. */
  async through(key: string, build: () => Promise<string>): Promise<Buffer> {
    const cached = this.get(key);
    if (cached !== undefined) return cached;
    const built = Buffer.from(await build(), 'utf8');
    this.set(key, built);
    return built;
  }
}
