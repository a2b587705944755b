import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Semaphore } from '../../../../shared/infra/semaphore.js';

describe('Semaphore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives its places at once, then makes callers wait until one is released', async () => {
    const semaphore = new Semaphore(2);
    const first = await semaphore.acquire(1000);
    const second = await semaphore.acquire(1000);
    expect(first).toBeTypeOf('function');
    expect(second).toBeTypeOf('function');
    expect(semaphore.inUse).toBe(2);

    let third: unknown = 'pending';
    void semaphore.acquire(1000).then((release) => {
      third = release;
    });
    await vi.advanceTimersByTimeAsync(500);
    expect(third).toBe('pending');
    expect(semaphore.waiting).toBe(1);

    first?.();
    await vi.advanceTimersByTimeAsync(0);
    expect(third).toBeTypeOf('function');
    expect(semaphore.inUse).toBe(2);
    expect(semaphore.waiting).toBe(0);
  });

  it('answers undefined to a caller no place came free for within its wait, and forgets it', async () => {
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire(1000);
    const waited = semaphore.acquire(300);
    await vi.advanceTimersByTimeAsync(300);
    await expect(waited).resolves.toBeUndefined();
    expect(semaphore.waiting).toBe(0);
    // The place released later is free again, not handed to the caller that gave up.
    held?.();
    expect(semaphore.inUse).toBe(0);
    expect(await semaphore.acquire(0)).toBeTypeOf('function');
  });

  it('hands a freed place to the longest waiter, never to a caller arriving after the release', async () => {
    const semaphore = new Semaphore(1);
    const held = await semaphore.acquire(1000);
    const order: string[] = [];
    const early = semaphore.acquire(10_000).then((release) => {
      order.push('early');
      return release;
    });
    const late = semaphore.acquire(10_000).then((release) => {
      order.push('late');
      return release;
    });
    held?.();
    const newcomer = semaphore.acquire(10_000).then((release) => {
      order.push('newcomer');
      return release;
    });
    (await early)?.();
    (await late)?.();
    await newcomer;
    expect(order).toEqual(['early', 'late', 'newcomer']);
  });

  it('counts a place once however often its release is called', async () => {
    const semaphore = new Semaphore(2);
    const release = await semaphore.acquire(0);
    release?.();
    release?.();
    expect(semaphore.inUse).toBe(0);
    await semaphore.acquire(0);
    await semaphore.acquire(0);
    const extra = semaphore.acquire(0);
    await vi.advanceTimersByTimeAsync(0);
    await expect(extra).resolves.toBeUndefined();
  });
});
