import { describe, expect, it } from 'vitest';
import { expandFeedInChild } from '../../../../shared/calendars/expand-in-child.js';
import { FeedOverBudgetError, IcsParseError } from '../../../../shared/calendars/ics.js';
import { deeplyNestedFeed, largeFeed, neverMatchingFeed } from '../../../support/hostile-feeds.js';
import { icsCalendar, icsEvent } from '../../../support/ics-server.js';

// The process a feed is expanded in: its answer comes back as the expansion (dates as Dates), and a
// feed over its time or memory budget ends in a FeedOverBudgetError naming the budget.

const NOW = new Date('2026-11-01T00:00:00Z');
const WINDOW = {
  from: NOW,
  to: new Date('2026-11-30T00:00:00Z'),
  maxOccurrences: 1000,
  maxSteps: 1_000_000,
};

describe('expandFeedInChild', () => {
  it('answers with the expansion', async () => {
    const text = icsCalendar([
      icsEvent(['UID:weekly', 'DTSTART:20261102T090000Z', 'DURATION:PT30M', 'RRULE:FREQ=WEEKLY;COUNT=2']),
    ]);
    const expansion = await expandFeedInChild(text, WINDOW, { timeoutMs: 30_000, memoryMb: 64 });
    expect(expansion.occurrences.map((o) => [o.recurrenceId, o.start.toISOString()])).toEqual([
      ['20261102T090000Z', '2026-11-02T09:00:00.000Z'],
      ['20261109T090000Z', '2026-11-09T09:00:00.000Z'],
    ]);
    expect(expansion.occurrences[0]!.end).toBeInstanceOf(Date);
  });

  it('stops a rule that never matches at the time limit', async () => {
    const expanding = expandFeedInChild(neverMatchingFeed(NOW), WINDOW, { timeoutMs: 1500, memoryMb: 512 });
    await expect(expanding).rejects.toThrow(FeedOverBudgetError);
    await expect(expanding).rejects.toThrow(/^the feed took more than 1.5 s to read/);
  });

  it('stops a feed that needs more memory than its process has, and the process asking lives on', async () => {
    const expanding = expandFeedInChild(largeFeed(5 * 1024 * 1024, NOW), WINDOW, {
      timeoutMs: 60_000,
      memoryMb: 16,
    });
    await expect(expanding).rejects.toThrow(
      new FeedOverBudgetError('the feed needs more than 16 MB of memory to read'),
    );
  });

  it('stops a rule that never matches at the memory limit when that comes first: its heap grows as it loops', async () => {
    // In a worker thread, this heap limit took the whole process down (V8's fatal out-of-memory).
    const expanding = expandFeedInChild(neverMatchingFeed(NOW), WINDOW, { timeoutMs: 120_000, memoryMb: 32 });
    await expect(expanding).rejects.toThrow(
      new FeedOverBudgetError('the feed needs more than 32 MB of memory to read'),
    );
  });

  it('passes on what is not a calendar as such', async () => {
    await expect(
      expandFeedInChild(deeplyNestedFeed(), WINDOW, { timeoutMs: 30_000, memoryMb: 64 }),
    ).rejects.toThrow(IcsParseError);
  });
});
