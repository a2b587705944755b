import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PeriodicLoop } from '../../../../shared/infra/background-loop.js';

/** A task whose rounds the test finishes by hand, recording when each started. */
function controlledTask() {
  const starts: number[] = [];
  const pending: Array<() => void> = [];
  return {
    starts,
    task: () => {
      starts.push(performance.now());
      return new Promise<void>((resolve) => pending.push(resolve));
    },
    finishRound: () => pending.shift()?.(),
  };
}

describe('PeriodicLoop', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs a round every interval, the first one interval after start', async () => {
    const task = vi.fn(async () => {});
    const loop = new PeriodicLoop({ intervalMs: 1000, task, onError: () => {} });
    loop.start();
    await vi.advanceTimersByTimeAsync(999);
    expect(task).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(4000);
    expect(task).toHaveBeenCalledTimes(5);
    await loop.stop();
  });

  it('runs at once when asked to, then on the interval', async () => {
    const task = vi.fn(async () => {});
    const loop = new PeriodicLoop({ intervalMs: 1000, task, onError: () => {}, runAtStart: true });
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(task).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(task).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it('keeps the setInterval beat: a round’s duration does not push the next one back', async () => {
    const rounds = controlledTask();
    const loop = new PeriodicLoop({ intervalMs: 1000, task: rounds.task, onError: () => {} });
    const origin = performance.now();
    loop.start();
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(300);
    rounds.finishRound();
    await vi.advanceTimersByTimeAsync(1700);
    expect(rounds.starts.map((at) => at - origin)).toEqual([1000, 2000]);
    rounds.finishRound();
    await loop.stop();
  });

  it('never runs two rounds at once: beats that come during a long round are skipped', async () => {
    const rounds = controlledTask();
    const loop = new PeriodicLoop({ intervalMs: 1000, task: rounds.task, onError: () => {} });
    const origin = performance.now();
    loop.start();
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(2500);
    expect(rounds.starts).toHaveLength(1);
    rounds.finishRound();
    await vi.advanceTimersByTimeAsync(500);
    expect(rounds.starts.map((at) => at - origin)).toEqual([1000, 4000]);
    rounds.finishRound();
    await loop.stop();
  });

  it('hands a failed round to onError and goes on', async () => {
    const failure = new Error('store down');
    const task = vi.fn().mockRejectedValueOnce(failure).mockResolvedValue(undefined);
    const onError = vi.fn();
    const loop = new PeriodicLoop({ intervalMs: 1000, task, onError });
    loop.start();
    await vi.advanceTimersByTimeAsync(2000);
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(failure);
    expect(task).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it('stop() waits for the round in hand and runs no more', async () => {
    const rounds = controlledTask();
    const loop = new PeriodicLoop({ intervalMs: 1000, task: rounds.task, onError: () => {} });
    loop.start();
    await vi.advanceTimersByTimeAsync(1000);
    let stopped = false;
    const stopping = loop.stop().then(() => {
      stopped = true;
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(stopped).toBe(false);
    rounds.finishRound();
    await stopping;
    await vi.advanceTimersByTimeAsync(5000);
    expect(rounds.starts).toHaveLength(1);
  });

  it('stop() during the wait ends at once, leaving no timer behind', async () => {
    const task = vi.fn(async () => {});
    const loop = new PeriodicLoop({ intervalMs: 60_000, task, onError: () => {} });
    loop.start();
    await vi.advanceTimersByTimeAsync(10);
    await loop.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(task).not.toHaveBeenCalled();
  });

  it('start() twice runs one loop', async () => {
    const task = vi.fn(async () => {});
    const loop = new PeriodicLoop({ intervalMs: 1000, task, onError: () => {} });
    loop.start();
    loop.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(task).toHaveBeenCalledTimes(1);
    await loop.stop();
  });

  it('lets the process exit while it waits only when told it need not hold it', async () => {
    const held = new PeriodicLoop({ intervalMs: 1000, task: async () => {}, onError: () => {} });
    const loose = new PeriodicLoop({
      intervalMs: 1000,
      task: async () => {},
      onError: () => {},
      holdsProcess: false,
    });
    vi.useRealTimers();
    const active = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    const before = active();
    held.start();
    expect(active()).toBe(before + 1);
    loose.start();
    expect(active()).toBe(before + 1);
    await held.stop();
    await loose.stop();
    expect(active()).toBe(before);
  });

  it('refuses an interval that would spin', () => {
    expect(() => new PeriodicLoop({ intervalMs: 0, task: async () => {}, onError: () => {} })).toThrow();
  });
});
