import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LiveSlots } from '../../../api/live/slots.js';
import { searchConcurrencyOf, searchGate } from '../../../api/routes/search/gate.js';
import { AppError, TooManyRequestsError } from '../../../shared/infra/errors.js';

/** Per-user slots in memory: at most `limit` a user, counted as the Redis ones count them. */
function memorySlots(limit: number): LiveSlots & { held: Map<number, number> } {
  const held = new Map<number, number>();
  return {
    held,
    async acquire(userId) {
      const count = held.get(userId) ?? 0;
      if (count >= limit) throw new TooManyRequestsError('too many', { 'Retry-After': '1' });
      held.set(userId, count + 1);
      return {
        refresh: async () => undefined,
        release: async () => {
          held.set(userId, (held.get(userId) ?? 1) - 1);
        },
      };
    },
  };
}

/** A search the test ends by hand. */
function pendingSearch() {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { run: () => promise, finish, fail };
}

describe('searchGate', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs SEARCH_CONCURRENCY searches at once; the next waits its turn and runs when one ends', async () => {
    const slots = memorySlots(10);
    const gate = searchGate({ perUser: slots, concurrency: 2, waitMs: 10_000 });
    const first = pendingSearch();
    const second = pendingSearch();
    const third = pendingSearch();
    const started: string[] = [];
    const track = (name: string, search: ReturnType<typeof pendingSearch>) => () => {
      started.push(name);
      return search.run();
    };
    const answers = [
      gate.run(1, track('first', first)),
      gate.run(2, track('second', second)),
      gate.run(3, track('third', third)),
    ];
    await vi.advanceTimersByTimeAsync(5000);
    expect(started).toEqual(['first', 'second']);

    first.finish('one');
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toEqual(['first', 'second', 'third']);
    second.finish('two');
    third.finish('three');
    expect(await Promise.all(answers)).toEqual(['one', 'two', 'three']);
    expect([...slots.held.values()]).toEqual([0, 0, 0]);
  });

  it('refuses with 503 and Retry-After a search no place came free for within its wait, and gives the user’s slot back', async () => {
    const slots = memorySlots(10);
    const gate = searchGate({ perUser: slots, concurrency: 1, waitMs: 10_000 });
    const holding = pendingSearch();
    const held = gate.run(1, holding.run);
    const waiting = gate.run(2, async () => 'never');
    const refusal = expect(waiting).rejects.toSatisfy(
      (error) =>
        error instanceof AppError &&
        error.status === 503 &&
        error.message === 'Too many searches are running on this server; try again shortly' &&
        error.headers['Retry-After'] === '1',
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await refusal;
    expect(slots.held.get(2)).toBe(0);
    holding.finish('done');
    await held;
  });

  it('refuses over the user’s own limit before taking a place, and gives both back when a search fails', async () => {
    const slots = memorySlots(1);
    const gate = searchGate({ perUser: slots, concurrency: 1, waitMs: 10_000 });
    const holding = pendingSearch();
    const held = gate.run(1, holding.run);
    await expect(gate.run(1, async () => 'second')).rejects.toBeInstanceOf(TooManyRequestsError);

    holding.fail(new Error('statement timeout'));
    await expect(held).rejects.toThrow('statement timeout');
    expect(slots.held.get(1)).toBe(0);
    // The place is free again: another search runs at once.
    expect(await gate.run(2, async () => 'next')).toBe('next');
  });
});

describe('searchConcurrencyOf', () => {
  it('is SEARCH_CONCURRENCY when set, else half the pool, at least one', () => {
    expect(searchConcurrencyOf({ SEARCH_CONCURRENCY: 3, DATABASE_POOL_MAX: 10 })).toBe(3);
    expect(searchConcurrencyOf({ SEARCH_CONCURRENCY: undefined, DATABASE_POOL_MAX: 10 })).toBe(5);
    expect(searchConcurrencyOf({ SEARCH_CONCURRENCY: undefined, DATABASE_POOL_MAX: 1 })).toBe(1);
  });
});
