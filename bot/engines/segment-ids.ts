import { randomBytes } from 'node:crypto';

/**
 * Segment ids must not collide across engine instances of one meeting (a restarted bot, or a
 * flushed and restarted recognizer), so each generator gets a random tag.
 */
export class SegmentIds {
  private readonly tag: string;
  private next = 0;

  constructor(prefix: string) {
    this.tag = `${prefix}-${randomBytes(4).toString('hex')}`;
  }

  create(): string {
    return `${this.tag}-${this.next++}`;
  }
}
