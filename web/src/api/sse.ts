/** One Server-Sent Event as the stream's text gives it. */
export interface SseEvent {
  event: string;
  data: string;
  /** The last `id:` seen up to this event (the stream's Last-Event-ID). */
  id: string | undefined;
}

/**
 * The event-stream format (WHATWG HTML, "Server-sent events") parsed from text chunks as they
 * arrive: lines end in CRLF, LF or CR; `:` starts a comment; an empty line dispatches the event;
 * `data` lines join with LF; an event without data is dropped. EventSource does this too, but it
 * cannot send the X-API-Key header, so the app reads the stream with fetch() and parses it here.
 */
export class SseParser {
  private buffer = '';
  private pendingCr = false;
  private eventType = '';
  private data: string[] = [];
  private lastId: string | undefined;

  /** Feeds a chunk; returns the events it completed. */
  push(chunk: string): SseEvent[] {
    const events: SseEvent[] = [];
    let text = chunk;
    // A CR at the end of the previous chunk ended a line; a LF right after it belongs to that CR.
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    let start = 0;
    for (let i = 0; i < this.buffer.length; i += 1) {
      const c = this.buffer.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const line = this.buffer.slice(start, i);
      if (c === 13) {
        if (i + 1 < this.buffer.length) {
          if (this.buffer.charCodeAt(i + 1) === 10) i += 1;
        } else {
          this.pendingCr = true;
        }
      }
      start = i + 1;
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      const data = this.data;
      const event = this.eventType || 'message';
      this.data = [];
      this.eventType = '';
      return data.length > 0 ? { event, data: data.join('\n'), id: this.lastId } : undefined;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.eventType = value;
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
    return undefined;
  }
}
